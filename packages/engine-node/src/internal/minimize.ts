// Minimization: delta debugging (ddmin) over the set of events the fuzzer
// held in a failing run. A candidate subset H is tested by replaying with
// only H's events forced to wait for their recorded predecessors; the others
// run as they arrive. The result is a 1-minimal H that still fails the same
// way (triage's same-bug rule, see same-failure.ts), explained as "X delayed
// past Y".
import { dirname } from "node:path";
import type { Outcome, TargetSandbox } from "@fuzzfarm/protocol";
import { crashState } from "@fuzzfarm/triage";
import { execute } from "./execute";
import { sameFailureAs } from "./same-failure";
import { toReplaySpec, type ReplaySpec, type Trace } from "./trace";
import { explainHolds } from "./explain";

export interface MinimizeOptions {
  /** The program and its arguments. */
  script: string;
  args?: string[];
  /** The failing run's trace (as written by --trace-out or a finding's reproducer). */
  trace: { events: readonly ReplaySpec["events"][number][]; seed?: number; root?: string; threads?: ReplaySpec["threads"] };
  /** Per-run wall-clock limit, ms; 0: none. Default 10000. */
  timeoutMs?: number;
  /** Per-run progress limit (see RunSpec.stallMs), ms. Default 0 (off). */
  stallMs?: number;
  /** Replays per candidate; the candidate fails if any replay fails the same way. Default 2. */
  tries?: number;
  /** Stop after this many replays in all. Default 300. */
  maxRuns?: number;
  cwd?: string;
  signal?: AbortSignal;
  /** The worker's sandbox for the replays (RunSpec.sandbox). Default: none. */
  sandbox?: TargetSandbox;
  /**
   * Whether a replay fails as the bug being kept. A farm minimize job passes its bucket's check (triage's
   * matchesBucket with the coordinator's buckets and root). Default: the same bug as the first failing replay
   * (triage's rule, paths relative to `rootDir`).
   */
  sameFailure?: (o: Outcome) => boolean;
  /** Root of frame paths in `signature` and in the default `sameFailure`. Default: cwd, else the script's directory. */
  rootDir?: string;
}

export interface MinimizeResult {
  /** Whether the full held set reproduced the failure at all. */
  reproduced: boolean;
  /** Triage signature of the failure being preserved, e.g. `uncaught:Error | inc@counter.js | ...`. */
  signature: string;
  /** Held events of the original trace, and the minimal subset that still fails. */
  originalHeld: string[];
  held: string[];
  /** One sentence per held event of the minimal set. */
  explanation: string[];
  /** The explanation as one paragraph. */
  text: string;
  /** Trace of the last failing replay with the minimal set. */
  trace: Trace | null;
  runs: number;
}

export async function minimizeSchedule(opts: MinimizeOptions): Promise<MinimizeResult> {
  const tries = opts.tries ?? 2;
  const maxRuns = opts.maxRuns ?? 300;
  const originalHeld = opts.trace.events.filter((e) => e.held).map((e) => e.id);
  let runs = 0;
  let signature = "";
  let lastFailing: Trace | null = null;

  const rootDir = opts.rootDir ?? opts.cwd ?? dirname(opts.script);
  let same = opts.sameFailure ?? null;
  const attempt = async (held: string[]): Promise<{ outcome: Outcome; trace: Trace | null }> => {
    runs++;
    const ex = await execute({
      script: opts.script, args: opts.args ?? [], strategy: "none", params: {}, seed: opts.trace.seed ?? 0,
      timeoutMs: opts.timeoutMs ?? 10_000, stallMs: opts.stallMs ?? 0, replay: toReplaySpec(opts.trace, held), cwd: opts.cwd, signal: opts.signal, sandbox: opts.sandbox,
    });
    return { outcome: ex.outcome, trace: ex.trace };
  };
  const fails = async (held: string[]): Promise<boolean> => {
    for (let i = 0; i < tries && runs < maxRuns && !opts.signal?.aborted; i++) {
      const r = await attempt(held);
      if (r.outcome.kind === "ok") continue;
      same ??= sameFailureAs(r.outcome, rootDir);
      if (same(r.outcome)) { signature ||= crashState(r.outcome, { rootDir }).signature; lastFailing = r.trace; return true; }
    }
    return false;
  };

  const base = { originalHeld, signature, runs, trace: null };
  if (!(await fails(originalHeld))) {
    return { ...base, runs, reproduced: false, held: originalHeld, explanation: [], text: "the failure did not reproduce when replaying the trace" };
  }
  const fullTrace = lastFailing;
  if (await fails([])) {
    return { ...base, signature, runs, reproduced: true, held: [], explanation: [], trace: lastFailing, text: "the program fails without any perturbation (not an ordering bug)" };
  }
  lastFailing = fullTrace;
  let c = originalHeld;
  let n = 2;
  while (c.length >= 2 && runs < maxRuns && !opts.signal?.aborted) {
    const chunks = split(c, n);
    let reduced = false;
    for (const chunk of chunks) {
      if (await fails(chunk)) { c = chunk; n = 2; reduced = true; break; }
    }
    if (!reduced && n > 2) {
      for (const chunk of chunks) {
        const rest = c.filter((id) => !chunk.includes(id));
        if (await fails(rest)) { c = rest; n = Math.max(n - 1, 2); reduced = true; break; }
      }
    }
    if (!reduced) { if (n >= c.length) break; n = Math.min(c.length, n * 2); }
  }
  if (lastFailing === fullTrace) await fails(c); // a trace of the minimal set itself
  const finalTrace = lastFailing as Trace | null;
  const explanation = finalTrace ? explainHolds(finalTrace.events, new Set(c)) : [];
  const text = explanation.length ? `${explanation.join("; ")}.` : `the failure needs ${c.length} held callback(s)`;
  return { reproduced: true, signature, originalHeld, held: c, explanation, text, trace: finalTrace, runs };
}

function split<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  const size = Math.ceil(xs.length / n);
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}
