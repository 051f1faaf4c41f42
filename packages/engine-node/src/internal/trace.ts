// The schedule trace written by the preload, and what the engine derives
// from it: the fingerprint (hash of the delivered site sequence), race-pair
// coverage (pairs of sites pending together, in the order they ran) and the
// compact form used to replay.
import { createHash } from "node:crypto";

/** One delivered callback. `reg`/`arr`/`del` are logical times of the interceptor's clock. */
export interface TraceEvent {
  /** Delivery order. */
  seq: number;
  /** Stable name across runs: `kind@site#resourceOrdinal.eventIndex`. */
  id: string;
  /** timeout, immediate, fs, fs.promise, dns, crypto, zlib, connect, write, shutdown, read, accept, close, exit, worker.exit, message. */
  kind: string;
  /** Registration site in user code, `file:line:col` (or `internal`). */
  site: string;
  /** Core API the program called at the site, e.g. `fs.readFile`. */
  api: string;
  /** async_hooks ids at arrival: the resource and its trigger. */
  async: number;
  trigger: number;
  /** Whether the fuzzer held the completion, and for how long (ms; 0 = next check phase). */
  held: boolean;
  delay: number;
  reg: number;
  arr: number;
  del: number;
  /** ms since the interceptor started, at delivery. */
  t: number;
  /** Still held when the program ended (listed after the delivered events, in arrival order). */
  undelivered?: boolean;
  /** A timer run in the same timers phase as the timer delivered before it (no poll phase between). */
  tp?: boolean;
}

export interface Trace {
  version: 1;
  node: string;
  strategy: { name: string; params: Record<string, number> };
  seed: number;
  mode: "fuzz" | "replay" | "replay-subset";
  /** The directory event sites are relative to (the run's cwd): a replay computes its ids from the same one. */
  root?: string;
  installed: string[];
  exitCode: number;
  heldAtExit: number;
  replaySkipped: number;
  uncaught: { origin: string; message: string; stack: string } | null;
  /** timeoutMs > 0: the wall-clock limit was reached; stallMs: no progress for that long. */
  hang: { timeoutMs: number; stallMs?: number; pending: string[] } | null;
  /** Child node processes started by the program, each with its own seed and trace file. */
  children?: { n: number; seed: number; command: string; traceOut: string | null }[];
  events: TraceEvent[];
  /** V8 ScriptCoverage of the program's files, when coverage was asked for. */
  coverage?: V8ScriptCoverage[];
  /** The slow-thread stalls of the program's worker threads (preload/threads.cjs), when the strategy made any: a replay makes the same. */
  threads?: ThreadStalls | null;
}

/** How worker threads stall after their posts (preload/threads.cjs; seeded by the run's seed and each thread's ordinal). */
export interface ThreadStalls {
  stallProb: number;
  stallSteps: number;
  stallMs: number;
  stalls: number;
}

export interface V8ScriptCoverage {
  url: string;
  functions: { functionName: string; isBlockCoverage: boolean; ranges: { startOffset: number; endOffset: number; count: number }[] }[];
}

/** What the preload needs to replay a trace. */
export interface ReplaySpec {
  events: { id: string; seq: number; held: boolean; t: number; tp?: boolean }[];
  holdSet?: string[] | null;
  /** The recording's root: event ids name sites relative to it, so a replay from another cwd still matches them. */
  root?: string;
  /** The recording's worker-thread stalls (with the recording's seed, the same posts stall). */
  threads?: ThreadStalls | null;
}

export function toReplaySpec(trace: { events: readonly ReplaySpec["events"][number][]; root?: string; threads?: ThreadStalls | null }, holdSet?: string[] | null): ReplaySpec {
  return {
    events: trace.events.map((e) => ({ id: e.id, seq: e.seq, held: e.held, t: e.t, ...(e.tp ? { tp: true } : {}) })), holdSet: holdSet ?? null,
    ...(trace.root ? { root: trace.root } : {}), ...(trace.threads ? { threads: trace.threads } : {}),
  };
}

/** A site without its column: the unit of race pairs and explanations. */
export const siteKey = (e: Pick<TraceEvent, "kind" | "site">): string => `${e.kind}@${e.site.replace(/:\d+$/, "")}`;

/** Hash of the delivered site sequence (16 hex digits). */
export function fingerprint(trace: Pick<Trace, "events">): string {
  const h = createHash("sha256");
  for (const e of trace.events) if (!e.undelivered) h.update(siteKey(e) + "\n");
  return h.digest("hex").slice(0, 16);
}

/**
 * Race pairs: (A, B) when B was pending (registered, not yet delivered) at
 * the moment A ran; written in the order they ran. Capped per run.
 */
export function racePairs(trace: Pick<Trace, "events">, cap = 20_000): string[] {
  // Pending events are counted per site key, not walked one by one: a
  // program that queues thousands of callbacks from one site (a logger
  // emitting an error per write after its worker died: 44,812 immediates in
  // one pino test) made the per-event walk quadratic, minutes after the
  // program had already exited.
  const evs = trace.events.filter((e) => !e.undelivered);
  const pairs = new Set<string>();
  const byReg = [...evs].sort((a, b) => a.reg - b.reg);
  const byDel = [...evs].sort((a, b) => a.del - b.del);
  const pending = new Map<string, number>();
  let r = 0;
  for (const a of byDel) {
    while (r < byReg.length && byReg[r]!.reg < a.del) {
      const k = siteKey(byReg[r++]!);
      pending.set(k, (pending.get(k) ?? 0) + 1);
    }
    const ka = siteKey(a);
    const left = (pending.get(ka) ?? 1) - 1;
    if (left > 0) pending.set(ka, left); else pending.delete(ka);
    for (const kb of pending.keys()) {
      pairs.add(`${ka}|${kb}`);
      if (pairs.size >= cap) return [...pairs];
    }
  }
  return [...pairs];
}
