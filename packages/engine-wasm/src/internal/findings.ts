// Turning a program's oracle failure into a protocol Finding: minimize the
// program (same oracle still fails), then the schedule, and pack the
// reproducer (minimized .wat, program tree, schedule) and triage details.
import type { FindingFor } from "@fuzzfarm/protocol";
import { emitWat } from "./gen/emit";
import type { GenConfig } from "./gen/config";
import type { Program } from "./gen/ir";
import { programShape, programToJson } from "./gen/shape";
import { expectedOf, type CheckOptions, type Harness, type ProgramFinding } from "./harness";
import { minimizeProgram, minimizeSchedule, replaySpec } from "./minimize";

export interface MinimizeBudget {
  /** Wall-clock deadline (performance.now()) for all minimization of this finding. */
  deadline: number;
}

export interface Minimized {
  program: Program;
  finding: ProgramFinding;
  decisions: number[] | null;
  tries: number;
}

/** Minimize a failing program while the same oracle fails on the same configuration. */
export async function minimizeFinding(h: Harness, p: Program, f: ProgramFinding, opts: Partial<CheckOptions>, budget: MinimizeBudget): Promise<Minimized> {
  const sameOracle = (g: { oracle: string } | null | undefined) => !!g && g.oracle === f.oracle;
  const checkOpts: Partial<CheckOptions> = { ...opts, runs: Math.min(opts.runs ?? 20, 20), stopAtFirst: true, tiers: f.config.tier === "liftoff" || f.config.tier === "turbofan", engines: ["default", "liftoff", "turbofan"].includes(f.config.tier) ? [] : [f.config.tier], optLevels: f.config.opt ? [f.config.opt] : [] };
  const stillFails = async (q: Program): Promise<boolean> => {
    if (performance.now() > budget.deadline || f.oracle === "crash") return false;
    if (q.threads.length === 0) return false;
    const r = await h.check(q, checkOpts);
    return r.findings.some(sameOracle);
  };
  const { program, tries } = await minimizeProgram(p, stillFails);
  let finding = f;
  let decisions: number[] | null = null;
  if (program !== p) {
    const r = await h.check(program, checkOpts);
    finding = r.findings.find(sameOracle) ?? f;
  }
  if (finding.spec && finding.decisions.length && finding.spec.mode !== 0 && performance.now() < budget.deadline) {
    const spec = finding.spec;
    const fails = async (d: number[]) =>
      performance.now() < budget.deadline && sameOracle(await h.checkSpec(program, opts, finding.config, replaySpec(spec, d)));
    if (await fails(finding.decisions)) decisions = await minimizeSchedule(finding.decisions, fails);
  }
  return { program, finding, decisions, tries };
}

/** The protocol finding for a (minimized) program failure. */
export function toFinding(m: Minimized, original: Program, cfg: GenConfig, strategy: string, extra: Record<string, unknown> = {}): FindingFor<"wasm"> {
  const f = m.finding;
  const wat = emitWat(m.program);
  const reproducer = {
    engine: "wasm" as const,
    seed: original.seed,
    options: { generator: { ...cfg }, strategy, tier: f.config.tier, opt: f.config.opt, ...extra },
    trace: {
      wat,
      program: programToJson(m.program),
      expected: expectedOf(m.program),
      outcome: f.outcome,
      spec: m.decisions ? replaySpec(f.spec!, m.decisions) : f.spec,
      decisions: m.decisions ?? f.decisions,
      config: f.config,
      oracle: f.oracle,
    },
  };
  const detail = {
    oracle: f.oracle,
    // Buckets key oracle findings on `shape`: the minimized program's, so a replay of the reproducer
    // (which holds the minimized program) lands in the same bucket as the finding.
    shape: programShape(m.program),
    originalShape: programShape(original),
    threads: m.program.threads.length,
    config: f.config,
    engine: engineOfConfig(f.config.tier),
    hangKind: f.hangKind,
    minimizeTries: m.tries,
    statements: m.program.threads.reduce((n, t) => n + t.body.length, 0),
  };
  const base = { message: f.message.split("\n")[0]!, stack: `${f.explanation}\n\n;; minimized program\n${wat}`, reproducer, detail };
  // Cross-configuration oracles name the configuration that differs, so buckets (keyed on the
  // oracle and the program shape) say it: tier@liftoff, engine@deno:turbofan, optimizer@O2.
  const where = f.oracle === "engine" || f.oracle === "tier" ? `${f.config.tier}${f.config.opt ? `/${f.config.opt}` : ""}` : f.oracle === "optimizer" ? f.config.opt : null;
  if (f.oracle === "crash") return { kind: "crash", crashKind: f.crash?.crashKind ?? "signal", ...base };
  if (f.oracle === "hang") return { kind: "hang", timeoutMs: 0, ...base };
  return { kind: "oracle", oracle: where ? `${f.oracle}@${where}` : f.oracle, ...base };
}

/** The engine of a configuration id: node for this Node's tiers, else the part before the tier. */
export function engineOfConfig(id: string): string {
  return id === "default" || id === "liftoff" || id === "turbofan" ? "node" : id.split(":")[0]!;
}
