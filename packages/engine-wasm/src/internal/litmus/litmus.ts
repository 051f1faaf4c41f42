// Litmus mode for any user module. Convention: imports env.memory (shared),
// exports t0..tN-1 (no params, i32 results) and optionally `final`. Each run
// zeroes memory, runs t0..tN-1 on N threads and records the outcome string
// `r,r;r,r|final`. The module is instrumented with yield points before every
// memory access, and a strategy (default race) schedules them; the reference
// interpreter enumerates the SC-allowed outcomes when the module is small.
import { readFile, stat } from "node:fs/promises";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import type { Harness } from "../harness";
import type { ModuleMeta, RunSpec } from "../runner/supervisor";
import { ScheduleTree } from "../runner/systematic";
import { needsInstrumentation, runSpec } from "../runner/strategies";
import { injectFault, type FaultKind } from "../text/faults";
import { instrument } from "../text/instrument";
import { encodeWat, linearText } from "../wasm-tools";
import { enumerateOutcomes, isAtomicOp } from "./interp";
import { parseLinear, type LinearModule } from "./parse";

export interface LitmusModule {
  file: string;
  bytes: Uint8Array;
  linear: string;
  mod: LinearModule;
  threads: string[];
  hasFinal: boolean;
  meta: ModuleMeta;
}

export async function loadLitmus(file: string): Promise<LitmusModule> {
  try {
    if (!(await stat(file)).isFile()) throw new Error("not a file");
  } catch {
    throw new FuzzFarmError("FF_ERR_TARGET_NOT_FOUND", `no such module: ${file}`);
  }
  const raw = new Uint8Array(await readFile(file));
  const bytes = file.endsWith(".wat") ? await encodeWat(new TextDecoder().decode(raw), file) : raw;
  const linear = await linearText(bytes, file);
  const mod = parseLinear(linear);
  const threads: string[] = [];
  while (mod.exports.has(`t${threads.length}`)) threads.push(`t${threads.length}`);
  if (!threads.length) throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `${file}: exports no thread function t0`);
  if (threads.length > 8) throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `${file}: more than 8 threads`);
  if (!mod.memory?.imported || !mod.memory.shared) throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `${file}: must import a shared memory as env.memory`);
  if (mod.otherImports.length) throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `${file}: unexpected import ${mod.otherImports[0]}`);
  for (const t of threads) {
    const f = mod.funcs.get(mod.exports.get(t)!);
    if (!f || f.params.length) throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `${file}: ${t} must take no parameters`);
    if (f.results.some((r) => r !== "i32")) throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `${file}: ${t} must return only i32 results`);
  }
  const hasFinal = mod.exports.has("final");
  return {
    file, bytes, linear, mod, threads, hasFinal,
    meta: { kind: "litmus", threads: threads.length, memory: { initial: mod.memory.initial, maximum: mod.memory.maximum }, hasFinal },
  };
}

export interface LitmusOptions {
  /** Runs. Default 200. */
  runs: number;
  /** Strategy (see runner/strategies.ts). Default 'race'. */
  strategy: string;
  /** Seed of the schedules. Default 0. */
  seed: number;
  /** Per-run watchdog, ms. Default 3000. */
  timeoutMs: number;
  /** Inject a fault into the module under test (the allowed set stays the original's). */
  fault: FaultKind | null;
  /** Engine configuration (default, liftoff, turbofan). */
  tier: string;
}
export const DEFAULT_LITMUS: Readonly<LitmusOptions> = Object.freeze({ runs: 200, strategy: "race", seed: 0, timeoutMs: 3000, fault: null, tier: "default" });

export interface LitmusReport {
  file: string;
  threads: number;
  strategy: string;
  seed: number;
  runs: number;
  outcomes: Record<string, number>;
  /** Run index (0-based) at which each outcome was first seen. */
  firstSeen: Record<string, number>;
  /** The schedule of that first run (replays it: token-mode specs carry their decisions). */
  firstSpec: Record<string, RunSpec>;
  /** dfs: every schedule at yield-point granularity ran (within --runs). */
  exhausted?: boolean;
  allowed?: string[];
  forbiddenSeen?: string[];
  /** The threads also make plain (non-atomic) accesses: racing plain accesses may legally show non-SC outcomes. */
  plainAccesses?: boolean;
  /** Runs that hung or trapped, by kind. */
  errors: Record<string, number>;
  faultApplies?: boolean;
}

/** The SC-allowed outcome set, or null when the module is too big or uses unsupported instructions. */
export function allowedOutcomes(m: LitmusModule): { allowed: string[]; plainAccesses: boolean } | null {
  const e = enumerateOutcomes(m.mod, m.threads, m.hasFinal ? "final" : null);
  if (!e) return null;
  const plainAccesses = !m.threads.every((t) => m.mod.funcs.get(m.mod.exports.get(t)!)!.body.every((i) => !/^(i32|i64)\.(load|store)/.test(i.op) || isAtomicOp(i.op)));
  return { allowed: e.allowed, plainAccesses };
}

export async function runLitmus(h: Harness, m: LitmusModule, opts: Partial<LitmusOptions> = {}, onRun?: (done: number) => void): Promise<LitmusReport> {
  const o = { ...DEFAULT_LITMUS, ...opts };
  let text: string | null = null;
  let faultApplies: boolean | undefined;
  if (o.fault) {
    const f = injectFault(m.linear, o.fault);
    text = f.text;
    faultApplies = f.applies;
  }
  if (needsInstrumentation(o.strategy)) text = instrument(text ?? m.linear).text;
  const bytes = text ? await encodeWat(text, "instrumented.wat") : m.bytes;
  const report: LitmusReport = { file: m.file, threads: m.threads.length, strategy: o.strategy, seed: o.seed, runs: 0, outcomes: {}, firstSeen: {}, firstSpec: {}, errors: {}, faultApplies };
  const batch = 50;
  const tree = o.strategy === "dfs" ? new ScheduleTree(o.seed, m.threads.length) : null;
  while (report.runs < o.runs && !tree?.exhausted) {
    const i = report.runs;
    const n = Math.min(batch, o.runs - i);
    const specs = tree ? tree.next(n) : [...Array(n)].map((_, j) => runSpec(o.strategy, o.seed, i + j, m.threads.length));
    const r = await h.execute(o.tier, bytes, m.meta, specs, { timeoutMs: o.timeoutMs, wantLogs: false });
    if ("crash" in r) { report.errors.crash = (report.errors.crash ?? 0) + 1; break; }
    if ("hang" in r) { report.errors.unresponsive = (report.errors.unresponsive ?? 0) + 1; break; }
    r.results.forEach((res, j) => {
      report.runs++;
      tree?.record(res);
      if (res.error) { report.errors[res.error.kind] = (report.errors[res.error.kind] ?? 0) + 1; return; }
      const oc = res.outcome!;
      report.outcomes[oc] = (report.outcomes[oc] ?? 0) + 1;
      if (!(oc in report.firstSeen)) {
        report.firstSeen[oc] = i + j;
        report.firstSpec[oc] = specs[j]!.mode === 1 ? { ...specs[j]!, replay: res.decisions, wantCands: undefined } : specs[j]!;
      }
    });
    onRun?.(report.runs);
  }
  if (tree) report.exhausted = tree.exhausted;
  const a = allowedOutcomes(m);
  if (a) {
    report.allowed = a.allowed;
    report.plainAccesses = a.plainAccesses;
    report.forbiddenSeen = Object.keys(report.outcomes).filter((k) => !a.allowed.includes(k)).sort();
  }
  return report;
}
