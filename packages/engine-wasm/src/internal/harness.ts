// Checks generated programs against every oracle:
//   schedule   every run (each a seeded schedule) gives the generator's expected result
//   history    each run's atomic log admits a total order per cell (history.ts)
//   tier       the same schedule under --liftoff-only and --no-liftoff (one child each) agrees
//   optimizer  the module optimized by the optimizer under test gives the expected result
//   hang       the scheduler or the watchdog saw a deadlock / lost wake-up
//   trap       a thread trapped; crash: the engine process died
// Module pipeline per configuration: encode -> [optimize] -> [inject fault] -> [instrument] -> run.
import { emitWat } from "./gen/emit";
import { evaluate, resultKey } from "./gen/evaluate";
import type { Program } from "./gen/ir";
import { cellAddr, lockAddr, MAX_LOG, PAGE, R_DET, R_LOG, R_LOGN, R_RSUM, regionAddr } from "./gen/layout";
import { racingCells } from "./gen/hb";
import { genFeatures, programShape } from "./gen/shape";
import { checkHistory, siteTable } from "./oracles/history";
import { optimize, OptimizerFailure, type OptimizerSource, type OptLevel } from "./optimize";
import { needsInstrumentation, runSpec } from "./runner/strategies";
import { configOf, type EngineConfig, type EngineSpec } from "./runner/engines";
import { Supervisor, TIER_FLAGS, type CrashInfo, type ModuleMeta, type RunResult, type RunSpec } from "./runner/supervisor";
import { injectFault, type FaultKind } from "./text/faults";
import { instrument } from "./text/instrument";
import { encodeWat, encodeWatBinaryen, linearText } from "./wasm-tools";
import { addSharedEverything, planSharedEverything, SE_WORD, type SharedEverythingPlan } from "./shared-everything";
import { FuzzFarmError, type TargetSandbox } from "@fuzzfarm/protocol";
import { generate } from "./gen/generate";
import { parseGenConfig } from "./gen/config";

export type OracleKind = "schedule" | "history" | "tier" | "engine" | "optimizer" | "trap" | "hang" | "crash";

export interface FaultSpec {
  kind: FaultKind;
  /** Which configuration gets the fault: every one, only the Liftoff tier, or only the optimized module. */
  where: "all" | "liftoff" | "optimized";
}

export interface CheckOptions {
  /** Perturbation strategy (see runner/strategies.ts). Default 'token'. */
  strategy: string;
  /** Schedules per program in the baseline configuration. Default 20. */
  runs: number;
  /** Compare V8 tiers (Liftoff-only vs TurboFan-only child processes). Default true. */
  tiers: boolean;
  /** Optimization levels compared against the unoptimized module. Default ['O2']. */
  optLevels: OptLevel[];
  /** The optimizer under test. Default: the project's own Binaryen. */
  optimizer: OptimizerSource;
  /** Run the history oracle on every baseline run. Default true. */
  history: boolean;
  /**
   * checkSpec only: the oracle a replayed finding was filed under. A "history" finding is checked for a
   * history violation even when the result is wrong too, so its replay lands in the same bucket. Default null.
   */
  preferOracle?: string | null;
  /** Per-run watchdog, ms. Default 3000. */
  timeoutMs: number;
  /** Runs per alternative configuration (tier, optimizer). Default 2. */
  crossRuns: number;
  /** Stop checking a program at its first finding. Default true. */
  stopAtFirst: boolean;
  /** Inject a fault (fault-detection bench, self-test). Default none. */
  fault: FaultSpec | null;
  /**
   * Engine configurations compared with this Node's default one under the same schedules (the
   * `engine` oracle), by id: `deno`, `bun`, `deno:liftoff`, `bun:ipint`, a command engine's name...
   * (runner/engines.ts). Default none.
   */
  engines: string[];
  /**
   * The baseline configuration (every schedule runs there). Default "default" (this Node); a
   * shared-everything program (p.sharedGlobals > 0) needs an engine that runs it, e.g. "deno" with
   * the Harness's v8Flags ["--experimental-wasm-shared"].
   */
  base: string;
}

export const DEFAULT_CHECK: Readonly<CheckOptions> = Object.freeze({
  strategy: "token",
  runs: 20,
  tiers: true,
  optLevels: ["O2"] as OptLevel[],
  optimizer: { path: null, cmd: null },
  history: true,
  timeoutMs: 3000,
  crossRuns: 2,
  stopAtFirst: true,
  fault: null,
  engines: [],
  base: "default",
});

export interface ProgramFinding {
  oracle: OracleKind;
  hangKind?: string;
  crash?: CrashInfo;
  message: string;
  explanation: string;
  config: { tier: string; opt: OptLevel | null };
  spec: RunSpec | null;
  runIndex: number;
  decisions: number[];
  outcome: string | null;
}

export interface ProgramReport {
  program: Program;
  wat: string;
  shape: string;
  expected: string;
  execs: number;
  ms: number;
  outcomes: Record<string, number>;
  findings: ProgramFinding[];
  features: string[];
  /** With a fault: whether it changed the module at all. */
  faultApplies: boolean | null;
  /** Executions per configuration id (baseline, tiers, engines; optimized modules count under their engine). */
  execsBy: Record<string, number>;
}

/**
 * Focus groups for race runs: the cells two threads access unordered by happens-before
 * (the generator knows them; elsewhere no schedule changes anything), a locked cell
 * together with its lock word (a broken lock shows only when two critical sections
 * overlap). Programs without such cells get every cell and lock word.
 */
function focusGroups(p: Program): number[][] {
  const racing = racingCells(p);
  if (!racing.length) return [...p.cells.map((_, i) => [cellAddr(i)]), ...[...Array(p.locks).keys()].map((l) => [lockAddr(l)])];
  return racing.map(({ cell, lock }) => (lock === null ? [cellAddr(cell)] : [lockAddr(lock), cellAddr(cell)]));
}

export function metaFor(p: Program): ModuleMeta {
  return {
    kind: "gen",
    threads: p.threads.length,
    memory: { initial: 1, maximum: 1 },
    shared: focusGroups(p),
    readout: {
      regions: p.threads.map((t) => regionAddr(t.id)),
      det: R_DET, rsum: R_RSUM, logn: R_LOGN, log: R_LOG, maxLog: MAX_LOG,
      cells: p.cells.map((c, i) => ({ addr: cellAddr(i), w: c.w })),
    },
  };
}

export function expectedOf(p: Program): string {
  const e = evaluate(p);
  return resultKey(e.det, e.rsum, e.cells);
}

/** Owns one supervised child per engine configuration; reuse it across programs. */
export class Harness {
  private sups = new Map<string, Supervisor>();
  private usable = new Map<string, Promise<void>>();
  /**
   * `engines`: engine specs behind configuration ids (paths of deno / bun, command engines); `deno` and
   * `bun` need none. `v8Flags`: extra V8 flags for every V8 configuration of another engine (Deno),
   * e.g. `--experimental-wasm-shared`. `sandbox`: the worker's sandbox for the runner processes (default none).
   */
  constructor(private readonly childEnv: Record<string, string> = {}, private readonly engineOpts: { engines?: EngineSpec[]; v8Flags?: string[]; sandbox?: TargetSandbox } = {}) {}

  /** The engine configuration behind an id ("default", "liftoff", "deno:liftoff", "bun", ...). Throws FF_ERR_CONFIG. */
  config(id: string): EngineConfig {
    return configOf(id, this.engineOpts.engines ?? [], this.engineOpts.v8Flags ?? []);
  }

  supervisor(tier: string): Supervisor {
    let s = this.sups.get(tier);
    if (!s) {
      const c = tier in TIER_FLAGS ? null : this.config(tier);
      const sandbox = this.engineOpts.sandbox ?? null;
      s = c ? new Supervisor(tier, c.flags, this.childEnv, c.launch, sandbox) : new Supervisor(tier, TIER_FLAGS[tier]!, this.childEnv, null, sandbox);
      this.sups.set(tier, s);
    }
    return s;
  }

  /**
   * Whether engine configuration `id` can run the runner at all: one small correct program, once per
   * harness. An engine release that cannot (Bun 1.0.0: its stdin stream fails, `EINVAL: Invalid argument`
   * from fstat) would otherwise make every program a `crash` finding; this throws FF_ERR_CONFIG in one line
   * naming the engine, its version and what it printed.
   */
  assertUsable(id: string): Promise<void> {
    let p = this.usable.get(id);
    if (!p) {
      p = (async () => {
        const probe = generate(1, parseGenConfig({ preset: "small", memOps: false, locks: false, waits: false }));
        const bytes = await encodeWat(emitWat(probe), "engine-probe.wat");
        const r = await this.execute(id, bytes, metaFor(probe), [runSpec("barrier", 1, 0, probe.threads.length)], { timeoutMs: 20_000, wantLogs: false });
        const why = "crash" in r ? crashLine(r.crash) : "hang" in r ? r.hang : r.results[0]?.error ? `${r.results[0].error.kind}: ${r.results[0].error.message}` : null;
        if (why) throw new FuzzFarmError("FF_ERR_CONFIG", `engine ${id} (${this.config(id).version}) cannot run the wasm runner: ${why}`);
      })();
      this.usable.set(id, p);
    }
    return p;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sups.values()].map((s) => s.close()));
    this.sups.clear();
  }

  /** encode -> [optimize] -> [fault] -> [instrument]. */
  async prepare(bytes: Uint8Array, o: { opt: OptLevel | null; optimizer: OptimizerSource; fault: FaultKind | null; instrument: boolean }): Promise<{ bytes: Uint8Array; faultApplies: boolean | null }> {
    let b = bytes;
    if (o.opt) b = await optimize(b, o.opt, o.optimizer);
    let faultApplies: boolean | null = null;
    if (o.fault || o.instrument) {
      let text = await linearText(b);
      if (o.fault) {
        const f = injectFault(text, o.fault);
        text = f.text;
        faultApplies = f.applies;
      }
      if (o.instrument) text = instrument(text).text;
      b = await encodeWat(text, "instrumented.wat");
    }
    return { bytes: b, faultApplies };
  }

  /** prepare(), then the shared-everything lowering of `se` (encoded by Binaryen). */
  async prepareFor(bytes: Uint8Array, se: SharedEverythingPlan | null, o: Parameters<Harness["prepare"]>[1]): Promise<{ bytes: Uint8Array; faultApplies: boolean | null }> {
    const r = await this.prepare(bytes, o);
    if (!se) return r;
    return { bytes: await encodeWatBinaryen(addSharedEverything(await linearText(r.bytes), se)), faultApplies: r.faultApplies };
  }

  /** Run `specs` of one module in one configuration. */
  async execute(tier: string, bytes: Uint8Array, meta: ModuleMeta, specs: RunSpec[], o: { timeoutMs: number; wantLogs: boolean }) {
    const sup = this.supervisor(tier);
    await sup.load(bytes, meta);
    return sup.run(specs, { timeoutMs: o.timeoutMs, wantLogs: o.wantLogs });
  }

  async check(p: Program, opts: Partial<CheckOptions> = {}): Promise<ProgramReport> {
    const o: CheckOptions = { ...DEFAULT_CHECK, ...opts };
    const t0 = performance.now();
    const wat = emitWat(p);
    const se = p.sharedGlobals > 0 ? planSharedEverything(p) : null;
    const bytes = await encodeWat(se ? emitWat({ ...p, sharedGlobals: 0 }) : wat, `program-${p.seed}.wat`);
    const expected = se ? `${expectedOf(p)};${se.total}` : expectedOf(p);
    const shape = programShape(p);
    const meta = seMeta(metaFor(p), se);
    const sites = siteTable(p);
    const features = new Set<string>(genFeatures(p));
    const report: ProgramReport = { program: p, wat, shape, expected, execs: 0, ms: 0, outcomes: {}, findings: [], features: [], faultApplies: null, execsBy: {} };
    const inst = needsInstrumentation(o.strategy);
    const specs = [...Array(o.runs)].map((_, i) => runSpec(o.strategy, p.seed, i, p.threads.length));
    const faultFor = (where: "base" | "liftoff" | "turbofan" | "optimized"): FaultKind | null => {
      if (!o.fault) return null;
      if (o.fault.where === "all") return o.fault.kind;
      return o.fault.where === where ? o.fault.kind : null;
    };
    const done = () => o.stopAtFirst && report.findings.length > 0;
    const add = (f: ProgramFinding) => {
      if (!report.findings.some((g) => g.oracle === f.oracle && g.config.tier === f.config.tier && g.config.opt === f.config.opt)) report.findings.push(f);
    };
    const noteFault = (a: boolean | null) => {
      if (a !== null) report.faultApplies = (report.faultApplies ?? false) || a;
    };

    // Baseline: default tier, unoptimized module, every schedule.
    const base = await this.prepareFor(bytes, se, { opt: null, optimizer: o.optimizer, fault: faultFor("base"), instrument: inst });
    noteFault(base.faultApplies);
    const baseOutcomes: (string | null)[] = [];
    const cfg0 = { tier: o.base, opt: null };
    for (let i = 0; i < specs.length && !done(); i += 5) {
      const chunk = specs.slice(i, i + 5);
      const r = await this.execute(o.base, base.bytes, meta, chunk, { timeoutMs: o.timeoutMs, wantLogs: o.history });
      if ("crash" in r || "hang" in r) {
        add(this.processFailure(r, cfg0, chunk[0]!, i));
        break;
      }
      r.results.forEach((res, j) => {
        report.execs++;
        report.execsBy[o.base] = (report.execsBy[o.base] ?? 0) + 1;
        baseOutcomes[i + j] = res.outcome;
        this.judge(res, chunk[j]!, i + j, cfg0, expected, report, add, true);
        if (o.history && res.logs && res.outcome) {
          const finals = res.outcome.split(";").slice(2).map((s) => BigInt(s));
          const h = checkHistory(p, sites, res.logs, finals);
          for (const rf of h.readsFrom) features.add(`rf:${shape}:${rf}`);
          if (!h.ok)
            add({ oracle: "history", message: `history: ${h.violations[0]!.reason}`.slice(0, 300), explanation: h.violations.map((v) => v.reason).join("\n"),
              config: cfg0, spec: chunk[j]!, runIndex: i + j, decisions: res.decisions, outcome: res.outcome });
        }
      });
      if (report.findings.some((f) => f.oracle === "hang" || f.oracle === "crash")) break;
    }

    // Tiers: the same schedules in a Liftoff-only and a TurboFan-only engine process.
    const cross = specs.slice(0, o.crossRuns);
    if (o.tiers && !done()) {
      for (const tier of ["liftoff", "turbofan"] as const) {
        if (done()) break;
        const f = faultFor(tier === "liftoff" ? "liftoff" : "turbofan");
        const mod = f ? await this.prepareFor(bytes, se, { opt: null, optimizer: o.optimizer, fault: f, instrument: inst }) : base;
        noteFault(mod.faultApplies);
        const cfg = { tier, opt: null };
        const r = await this.execute(tier, mod.bytes, meta, cross, { timeoutMs: o.timeoutMs, wantLogs: false });
        if ("crash" in r || "hang" in r) { add(this.processFailure(r, cfg, cross[0]!, 0)); continue; }
        this.judgeCross(r.results, cross, cfg, expected, baseOutcomes, report, add, (got, spec, j) => ({
          oracle: "tier",
          message: `tier ${tier} disagrees with the default engine: got ${got}, expected ${expected}`,
          explanation: `schedule ${spec.strategy}#${j} (seed ${spec.seed}) gives ${expected} in the default engine and ${got} with ${TIER_FLAGS[tier]!.join(" ")}`,
        }));
      }
    }

    // Engines: the same schedules on other engines (Deno's V8, Bun's JSC, a command), each in its own process.
    for (const id of o.engines.filter((e) => e !== o.base)) if (!(id in TIER_FLAGS)) await this.assertUsable(id);
    for (const id of o.engines.filter((e) => e !== o.base)) {
      if (done()) break;
      const c = this.config(id);
      const f = faultFor("base");
      const cfg = { tier: id, opt: null };
      const r = await this.execute(id, base.bytes, meta, cross, { timeoutMs: o.timeoutMs, wantLogs: false });
      if ("crash" in r || "hang" in r) { add(this.processFailure(r, cfg, cross[0]!, 0)); continue; }
      this.judgeCross(r.results, cross, cfg, expected, baseOutcomes, report, add, (got, spec, j) => ({
        oracle: "engine",
        message: `engine ${id} (${c.version}) disagrees: got ${got}, expected ${expected}`,
        explanation: `schedule ${spec.strategy}#${j} (seed ${spec.seed}) gives ${expected} on ${this.config(o.base).version} and ${got} on ${c.version}${c.flags.length ? ` with ${c.flags.join(" ")}` : ""}${c.launch && Object.keys(c.launch.env).length ? ` with ${Object.entries(c.launch.env).filter(([k]) => k.startsWith("BUN_JSC_")).map(([k, v]) => `${k}=${v}`).join(" ")}` : ""}${f ? ` (fault ${f} injected)` : ""}`,
      }));
    }

    // Optimizer: each level against the unoptimized module's expected result.
    for (const level of o.optLevels) {
      if (done()) break;
      const cfg = { tier: o.base, opt: level };
      let mod;
      try {
        mod = await this.prepareFor(bytes, se, { opt: level, optimizer: o.optimizer, fault: faultFor("optimized"), instrument: inst });
      } catch (e) {
        if (!(e instanceof OptimizerFailure)) throw e;
        add({ oracle: "optimizer", message: e.message, explanation: e.message, config: cfg, spec: null, runIndex: -1, decisions: [], outcome: null });
        continue;
      }
      noteFault(mod.faultApplies);
      // The optimized module on the baseline and on every other engine (engine x optimizer). A wrong
      // result everywhere is the optimizer's; a wrong result on some engines while others give the
      // expected one is those engines' (optimized code reaching an engine bug), baseline included.
      const ids = [o.base, ...o.engines.filter((e) => e !== o.base)];
      const runs: { id: string; results: RunResult[] }[] = [];
      for (const id of ids) {
        const r = await this.execute(id, mod.bytes, meta, cross, { timeoutMs: o.timeoutMs, wantLogs: false });
        if ("crash" in r || "hang" in r) { add(this.processFailure(r, { tier: id, opt: level }, cross[0]!, 0)); continue; }
        runs.push({ id, results: r.results });
      }
      cross.forEach((spec, j) => {
        const right = runs.filter((x) => x.results[j]?.outcome === expected).map((x) => x.id);
        for (const x of runs) {
          const res = x.results[j]!;
          report.execs++;
          report.execsBy[x.id] = (report.execsBy[x.id] ?? 0) + 1;
          const cfg = { tier: x.id, opt: level };
          if (res.error) { this.judge(res, spec, j, cfg, expected, report, add); continue; }
          report.outcomes[res.outcome!] = (report.outcomes[res.outcome!] ?? 0) + 1;
          if (res.outcome === expected || baseOutcomes[j] !== expected) continue;
          const c = this.config(x.id);
          if (right.length)
            add({ oracle: "engine", config: cfg, spec, runIndex: j, decisions: res.decisions, outcome: res.outcome,
              message: `engine ${x.id} (${c.version}) disagrees on the -${level} module: got ${res.outcome}, expected ${expected}`,
              explanation: `schedule ${spec.strategy}#${j} (seed ${spec.seed}) of the binaryen -${level} module gives ${expected} on ${right.map((id) => `${id} (${this.config(id).version})`).join(", ")} and ${res.outcome} on ${c.version}${c.flags.length ? ` with ${c.flags.join(" ")}` : ""}` });
          else
            add({ oracle: "optimizer", config: cfg, spec, runIndex: j, decisions: res.decisions, outcome: res.outcome,
              message: `binaryen -${level} changes the result: got ${res.outcome}, expected ${expected}`,
              explanation: `unoptimized module gives ${expected}; after -${level} (threads enabled) it gives ${res.outcome} under schedule ${spec.strategy} seed ${spec.seed}${runs.length > 1 ? ` on every engine (${runs.map((r) => r.id).join(", ")})` : ""}` });
        }
      });
    }

    for (const oc of Object.keys(report.outcomes)) features.add(`outcome:${shape}:${oc === expected ? "expected" : "other:" + oc.slice(0, 80)}`);
    report.features = [...features];
    report.ms = performance.now() - t0;
    return report;
  }

  /** Run one schedule of `p` in one configuration and say which oracle (if any) fails. */
  async checkSpec(p: Program, opts: Partial<CheckOptions>, cfg: { tier: string; opt: OptLevel | null }, spec: RunSpec): Promise<ProgramFinding | null> {
    const o: CheckOptions = { ...DEFAULT_CHECK, ...opts };
    const se = p.sharedGlobals > 0 ? planSharedEverything(p) : null;
    const bytes = await encodeWat(emitWat({ ...p, sharedGlobals: 0 }));
    const expected = se ? `${expectedOf(p)};${se.total}` : expectedOf(p);
    const where = cfg.opt ? "optimized" : cfg.tier === "liftoff" ? "liftoff" : "base";
    const fault = o.fault && (o.fault.where === "all" || o.fault.where === where) ? o.fault.kind : null;
    let mod;
    try {
      mod = await this.prepareFor(bytes, se, { opt: cfg.opt, optimizer: o.optimizer, fault, instrument: needsInstrumentation(spec.strategy) });
    } catch (e) {
      if (e instanceof OptimizerFailure) return { oracle: "optimizer", message: e.message, explanation: e.message, config: cfg, spec: null, runIndex: -1, decisions: [], outcome: null };
      throw e;
    }
    const r = await this.execute(cfg.tier, mod.bytes, seMeta(metaFor(p), se), [spec], { timeoutMs: o.timeoutMs, wantLogs: o.history });
    if ("crash" in r || "hang" in r) return this.processFailure(r, cfg, spec, 0);
    const res = r.results[0]!;
    const found: ProgramFinding[] = [];
    const report = { outcomes: {} } as ProgramReport;
    this.judge(res, spec, 0, { tier: "default", opt: null }, expected, report, (f) => found.push(f));
    const f = found[0];
    if (f && f.oracle === "schedule" && (cfg.tier !== "default" || cfg.opt)) return { ...f, oracle: !(cfg.tier in TIER_FLAGS) ? "engine" : cfg.opt ? "optimizer" : "tier", config: cfg };
    if ((!f || o.preferOracle === "history") && o.history && res.logs && res.outcome) {
      const h = checkHistory(p, siteTable(p), res.logs, res.outcome.split(";").slice(2).map((x) => BigInt(x)));
      if (!h.ok) return { oracle: "history", message: `history: ${h.violations[0]!.reason}`.slice(0, 300), explanation: h.violations.map((v) => v.reason).join("\n"), config: cfg, spec, runIndex: 0, decisions: res.decisions, outcome: res.outcome };
    }
    return f ? { ...f, config: cfg } : null;
  }

  /**
   * Runs of another configuration (tier, optimizer) under the baseline's schedules: a schedule whose
   * baseline gave the expected result must give it here too; `disagree` words the finding.
   */
  private judgeCross(
    results: RunResult[], cross: RunSpec[], cfg: { tier: string; opt: OptLevel | null }, expected: string, baseOutcomes: (string | null)[],
    report: ProgramReport, add: (f: ProgramFinding) => void,
    disagree: (got: string, spec: RunSpec, j: number) => { oracle: OracleKind; message: string; explanation: string },
  ): void {
    results.forEach((res, j) => {
      report.execs++;
      if (report.execsBy) report.execsBy[cfg.tier] = (report.execsBy[cfg.tier] ?? 0) + 1;
      if (res.error) return this.judge(res, cross[j]!, j, cfg, expected, report, add);
      report.outcomes[res.outcome!] = (report.outcomes[res.outcome!] ?? 0) + 1;
      if (res.outcome !== expected && baseOutcomes[j] === expected)
        add({ ...disagree(res.outcome!, cross[j]!, j), config: cfg, spec: cross[j]!, runIndex: j, decisions: res.decisions, outcome: res.outcome });
    });
  }

  private judge(res: RunResult, spec: RunSpec, i: number, cfg: { tier: string; opt: OptLevel | null }, expected: string, report: ProgramReport, add: (f: ProgramFinding) => void, isBase = cfg.tier === "default" && !cfg.opt): void {
    if (res.error) {
      const e = res.error;
      if (e.kind === "trap")
        add({ oracle: "trap", message: `trap: ${e.message}`.slice(0, 300), explanation: `${e.message}\nstates: ${e.states}`, config: cfg, spec, runIndex: i, decisions: res.decisions, outcome: null });
      else
        add({ oracle: "hang", hangKind: e.kind, message: `${e.kind}: ${e.message}`, explanation: `thread states at the cut: ${e.states}\npool recovery: ${res.recovery ?? "-"}`,
          config: cfg, spec, runIndex: i, decisions: res.decisions, outcome: null });
      return;
    }
    const oc = res.outcome!;
    if (isBase) {
      report.outcomes[oc] = (report.outcomes[oc] ?? 0) + 1;
      if (oc !== expected)
        add({ oracle: "schedule", message: `result under schedule ${spec.strategy} seed ${spec.seed} differs: got ${oc}, expected ${expected}`,
          explanation: `outcome vector is det;rsum;cell0..; the generator's expected result is ${expected}`, config: cfg, spec, runIndex: i, decisions: res.decisions, outcome: oc });
    }
  }

  private processFailure(r: { crash: CrashInfo } | { hang: string }, cfg: { tier: string; opt: OptLevel | null }, spec: RunSpec, i: number): ProgramFinding {
    if ("crash" in r) {
      const c = r.crash;
      return { oracle: "crash", crash: c, message: `engine process died (${c.signal ? `signal ${c.signal}` : `exit code ${c.exitCode}`})`,
        explanation: c.stderr.slice(-4000), config: cfg, spec, runIndex: i, decisions: [], outcome: null };
    }
    return { oracle: "hang", hangKind: "unresponsive", message: r.hang, explanation: r.hang, config: cfg, spec, runIndex: i, decisions: [], outcome: null };
  }
}

/** The line of an engine's dying words that says why (an error line), else its last line. */
function crashLine(c: CrashInfo): string {
  const lines = c.stderr.split("\n").map((l) => l.trim()).filter((l) => l && l.length < 300);
  const err = lines.find((l) => /^(\w*Error|E[A-Z]{2,}|Fatal|panic)\b.*:/.test(l));
  return `${err ?? lines[lines.length - 1] ?? "no output"} (${c.signal ? `signal ${c.signal}` : `exit code ${c.exitCode}`})`;
}

/** A shared-everything program's result vector ends with the digest word (shared-everything.ts). */
function seMeta(m: ModuleMeta, se: SharedEverythingPlan | null): ModuleMeta {
  return se && m.readout ? { ...m, readout: { ...m.readout, cells: [...m.readout.cells, { addr: SE_WORD, w: 64 }] } } : m;
}

export { PAGE };
