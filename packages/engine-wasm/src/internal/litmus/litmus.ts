// Litmus mode for any user module. Convention: imports env.memory (shared),
// exports t0..tN-1 (no params, i32 results) and optionally `final`. Each run
// zeroes memory, runs t0..tN-1 on N threads and records the outcome string
// `r,r;r,r|final`. The module is instrumented with yield points before every
// memory access (plain and atomic alike), and a strategy schedules them. The
// default, `auto`, explores systematically with partial-order reduction (one run
// per order of racing accesses) and says whether it got through; when the
// exploration does not fit the budget it goes on in guided random order
// (alternatives that reverse racing pairs not yet reversed first). The reference
// interpreter enumerates the SC-allowed outcomes when the module is small.
import { readFile, stat } from "node:fs/promises";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import type { Harness } from "../harness";
import type { ModuleMeta, RunSpec } from "../runner/supervisor";
import { byteDependence, ScheduleTree, type ExploreStats } from "../runner/systematic";
import { needsInstrumentation, runSpec } from "../runner/strategies";
import { injectFault, type FaultKind } from "../text/faults";
import { instrument, SITE_BASE } from "../text/instrument";
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
  /** Strategy (see runner/strategies.ts). Default 'auto'. */
  strategy: string;
  /**
   * auto: the share of `runs` the systematic exploration may use at least; it goes on past it
   * while what it has run plus the alternatives left still fit in `runs`. Default 0.5.
   */
  systematicShare: number;
  /** Seed of the schedules. Default 0. */
  seed: number;
  /** Per-run watchdog, ms. Default 3000. */
  timeoutMs: number;
  /** Inject a fault into the module under test (the allowed set stays the original's). */
  fault: FaultKind | null;
  /** Engine configuration (default, liftoff, turbofan). */
  tier: string;
}
export const DEFAULT_LITMUS: Readonly<LitmusOptions> = Object.freeze({ runs: 200, strategy: "auto", systematicShare: 0.5, seed: 0, timeoutMs: 3000, fault: null, tier: "default" });

/** How far the systematic exploration of `auto` (and `dfs`) got. */
export interface Exploration extends ExploreStats {
  /** Runs of the systematic phase (deepest alternatives first). */
  systematicRuns: number;
  /** auto: runs of the guided phase (untried alternatives in seeded order, those reversing racing pairs not yet seen reversed first). */
  guidedRuns: number;
  /** auto: runs after the exploration was exhausted (random token schedules). */
  randomRuns: number;
  /** Every order of racing accesses ran (auto) / every interleaving ran (dfs). */
  exhausted: boolean;
  /** Runs it took, when exhausted. */
  exhaustedAfter?: number;
  /** Partial-order reduction over racing accesses (false: every interleaving of accesses, as for modules that wait). */
  reduced: boolean;
}

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
  /** dfs, auto: every schedule at yield-point granularity (auto: every order of racing accesses) ran (within --runs). */
  exhausted?: boolean;
  /** dfs, auto: how far the systematic exploration got. */
  exploration?: Exploration;
  allowed?: string[];
  forbiddenSeen?: string[];
  /** The threads also make plain (non-atomic) accesses: racing plain accesses may legally show non-SC outcomes. */
  plainAccesses?: boolean;
  /** Runs that hung or trapped, by kind. */
  errors: Record<string, number>;
  faultApplies?: boolean;
}

/** Bytes a memory instruction touches, from its opcode (`i64.atomic.rmw16.add_u` -> 2). */
export function accessWidth(siteOp: string): number {
  const op = siteOp.split(" ").pop() ?? "";
  const m = /(?:load|store|rmw)(8|16|32)(?:[._]|$)/.exec(op);
  if (m) return Number(m[1]) / 8;
  return /^(i64|f64)\./.test(op) ? 8 : 4;
}

/** Byte widths by site number - SITE_BASE, for the scheduler's sleep sets. */
function siteWidths(sites: Map<number, string>): number[] {
  const out: number[] = [];
  for (const [site, op] of sites) if (site >= SITE_BASE) out[site - SITE_BASE] = accessWidth(op);
  return Array.from(out, (w) => w ?? 8);
}

/** The SC-allowed outcome set, or null when the module is too big or uses unsupported instructions. */
export function allowedOutcomes(m: LitmusModule): { allowed: string[]; plainAccesses: boolean } | null {
  const e = enumerateOutcomes(m.mod, m.threads, m.hasFinal ? "final" : null);
  if (!e) return null;
  // Any function but `final` (which runs alone, after the threads) may make a thread's plain access.
  const fin = m.mod.exports.get("final");
  const plainAccesses = [...m.mod.funcs.values()].some((f) => f.name !== fin && f.body.some((i) => /^(i32|i64|f32|f64)\.(load|store)/.test(i.op) && !isAtomicOp(i.op)));
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
  let sites: Map<number, string> | null = null;
  if (needsInstrumentation(o.strategy)) {
    const ins = instrument(text ?? m.linear);
    text = ins.text;
    sites = ins.sites;
  }
  const bytes = text ? await encodeWat(text, "instrumented.wat") : m.bytes;
  const report: LitmusReport = { file: m.file, threads: m.threads.length, strategy: o.strategy, seed: o.seed, runs: 0, outcomes: {}, firstSeen: {}, firstSpec: {}, errors: {}, faultApplies };
  const batch = 50;
  // auto reduces over racing accesses; a module that waits gets every interleaving (a wait's wake-up is not an access the scheduler sees).
  const reduced = o.strategy === "auto" && !/memory\.atomic\.wait/.test(text ?? m.linear);
  const tree = o.strategy === "dfs" || o.strategy === "auto"
    ? new ScheduleTree(o.seed, m.threads.length, undefined, reduced ? byteDependence((site) => accessWidth(sites!.get(site) ?? "")) : null, reduced ? siteWidths(sites!) : [])
    : null;
  const auto = o.strategy === "auto";
  const systematicBudget = Math.max(1, Math.ceil(o.runs * o.systematicShare));
  let exhaustedAfter: number | undefined;
  let systematicRuns = 0;
  let guidedRuns = 0;
  let randomRuns = 0;
  let guided = false;
  /** The exploration's numbers when it ran out of alternatives (guided runs after it grow the tree further). */
  let atExhaustion: ExploreStats | undefined;
  while (report.runs < o.runs) {
    if (tree && exhaustedAfter === undefined && tree.exhausted) { exhaustedAfter = report.runs; atExhaustion = tree.stats(); }
    if (tree && !auto && exhaustedAfter !== undefined) break;
    const i = report.runs;
    // Systematic while within its share, or while the runs so far plus the alternatives left (a lower bound of what is left) fit.
    if (auto && !guided && exhaustedAfter === undefined && i >= systematicBudget && i + tree!.stats().frontier > o.runs) guided = true;
    guided ||= auto && exhaustedAfter !== undefined;
    const n = Math.min(batch, o.runs - i);
    const specs = tree ? tree.next(n, guided) : [...Array(n)].map((_, j) => runSpec(o.strategy, o.seed, i + j, m.threads.length));
    if (!specs.length) break;
    if (exhaustedAfter !== undefined) randomRuns += specs.length;
    else if (guided) guidedRuns += specs.length;
    else systematicRuns += specs.length;
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
        // Token runs replay from their whole decision list (no candidate sets, sleep sets or random tail needed).
        report.firstSpec[oc] = specs[j]!.mode === 1 ? { ...specs[j]!, replay: res.decisions, wantCands: undefined, randomTail: undefined, sleep: undefined, siteWidths: undefined } : specs[j]!;
      }
    });
    onRun?.(report.runs);
  }
  if (tree) {
    if (exhaustedAfter === undefined && tree.exhausted) { exhaustedAfter = report.runs; atExhaustion = tree.stats(); }
    report.exhausted = exhaustedAfter !== undefined;
    report.exploration = { ...(atExhaustion ?? tree.stats()), systematicRuns, guidedRuns, randomRuns, exhausted: report.exhausted, ...(exhaustedAfter !== undefined ? { exhaustedAfter } : {}), reduced };
  }
  const a = allowedOutcomes(m);
  if (a) {
    report.allowed = a.allowed;
    report.plainAccesses = a.plainAccesses;
    report.forbiddenSeen = Object.keys(report.outcomes).filter((k) => !a.allowed.includes(k)).sort();
  }
  return report;
}
