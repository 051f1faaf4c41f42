// nodeEngine: the farm's entry point. A job runs the target budget.runs
// times (or budget.seconds) under the job's strategy, several runs in
// flight, in warm workers when it can. Each run yields race pairs and
// coverage features; runs that bring new features become corpus candidates;
// each distinct failure becomes a finding, confirmed by replaying its
// recorded schedule (detail.reproduced = "k/n"). The first (unperturbed) run
// is also the observation run of guided search (guide.ts): every 4th run
// postpones one callback of a racing pair until the other has run.
import { dirname, resolve } from "node:path";
import { randomInt } from "node:crypto";
import {
  FuzzFarmError, JOB_ERROR_KINDS, type Engine, type EngineResultInputFor, type Finding, type FindingFor, type JobFor, type NodeJobStrategy, type Outcome, type ReproducerFor,
  type EngineRunContext, type Minimized,
} from "@fuzzfarm/protocol";
import { JobRecorder } from "@fuzzfarm/corpus";
import { createRng } from "@fuzzfarm/rng";
import { minimizeSchedule } from "./minimize";
import { FUZZ_DRIVER } from "./paths";
import { exportsFuzz, InputSource, writeInput } from "./fuzz-input";
import { execute, type Execution } from "./execute";
import { FailureSet, sameFailureAs } from "./same-failure";
import { WarmPool, warmCapable } from "./warm";
import { splitParams } from "./engine-params";
import { checkTarget, loadFailure } from "./target";
import { CoverageAccumulator, statementTotal } from "./coverage";
import type { RunSpec } from "./spawn";
import { selfTest } from "./selftest";
import { GuidePicker, guideParams, raceCandidates } from "./guide";

/** A corpus candidate of this engine, as its `run` returns them. */
type Candidate = NonNullable<Awaited<ReturnType<Engine<"node">["run"]>>["corpus"]>[number];

interface SeedStrategy { strategy: NodeJobStrategy; params: Record<string, number>; seed: number }

function seedStrategies(job: JobFor<"node">): SeedStrategy[] {
  const out: SeedStrategy[] = [];
  for (const s of job.seeds) {
    const r = s.strategy as Partial<SeedStrategy>;
    if (typeof r.strategy === "string" && typeof r.seed === "number") out.push({ strategy: r.strategy, params: (r.params as Record<string, number>) ?? {}, seed: r.seed });
  }
  return out;
}

/**
 * The command line of one run: the script itself, or for a `fuzz(data)` target the driver with the input
 * written to a file in `dir`.
 */
function commandFor(script: string, args: string[], input: Uint8Array | undefined, dir: string, name: string): { script: string; args: string[] } {
  if (input === undefined) return { script, args };
  return { script: FUZZ_DRIVER, args: [script, writeInput(dir, name, input)] };
}

/** A finding of a fuzz-target run carries its input; its args are the program's, not the driver's. */
function withInput<T extends Outcome>(f: T, input: Uint8Array | undefined, args: string[]): T {
  if (input === undefined || f.kind === "ok") return f;
  return { ...f, reproducer: { ...f.reproducer, input: Buffer.from(input).toString("base64"), options: { ...f.reproducer.options, args } } };
}

/** Replay a recorded schedule once in a fresh process. */
async function replayOnce(script: string, args: string[], repro: Pick<ReproducerFor<"node">, "trace" | "seed">, timeoutMs: number, ctx: EngineRunContext): Promise<Execution> {
  const trace = repro.trace;
  return execute({
    script, args, strategy: "none", params: {}, seed: repro.seed ?? 0, timeoutMs,
    replay: trace && Array.isArray(trace.events) ? { events: trace.events, holdSet: trace.holdSet ?? null, threads: trace.threads ?? null } : null, signal: ctx.signal, sandbox: ctx.sandbox,
  });
}

async function run(job: JobFor<"node">, ctx: EngineRunContext): Promise<EngineResultInputFor<"node">> {
  // Findings: one per bug by triage's rule (FailureSet keys), up to the protocol's 1000.
  const rec = new JobRecorder<Candidate>({ onProgress: ctx.onProgress, maxFindings: 1000 });
  const script = resolve(job.target.path);
  const bad = checkTarget(script);
  if (bad) return rec.failed(bad);
  const { knobs, strategyParams } = splitParams(job.options);
  const args = job.options.args;
  const timeoutMs = job.options.timeoutMs;
  // A `fuzz(data)` target: every run also gets a mutated input (input fuzzing under the perturbed loop).
  const inputs = exportsFuzz(script) ? new InputSource(job) : null;
  const inputOf = new WeakMap<RunSpec, Uint8Array>();
  const pool = knobs.warm && !inputs && warmCapable(script) ? new WarmPool(knobs.jobs, ctx.sandbox ?? null) : null;
  const seeds = seedStrategies(job);
  const failures = new FailureSet(dirname(script));
  const cov = new CoverageAccumulator();
  let observedEvents = 0;
  let pick = 0;
  const deadline = rec.startedAt + job.budget.seconds * 1000;
  const more = () => pick < job.budget.runs && performance.now() < deadline && !ctx.signal.aborted;

  try {
    // baseline: no perturbation; a program that cannot even load is a bad target
    const first = inputs ? new Uint8Array(0) : undefined;
    const baseSpec: RunSpec = { ...commandFor(script, args, first, ctx.workDir, "base"), strategy: "none", params: {}, seed: 0, timeoutMs, cwd: undefined, signal: ctx.signal, sandbox: ctx.sandbox };
    if (first) inputOf.set(baseSpec, first);
    const base = await execute(baseSpec);
    const lf = base.outcome.kind === "crash" ? loadFailure(base.result.stderr, base.trace?.events.length ?? 0) : null;
    if (lf) {
      rec.exec(1);
      return rec.failed({ kind: "target-invalid", message: lf });
    }
    if (!base.trace) throw new FuzzFarmError("FF_ERR_ENGINE_SELFTEST", `the interceptor wrote no trace for ${script}: ${base.result.stderr.split("\n")[0] ?? ""}`);
    observedEvents = base.trace.events.length;
    await absorb(base, "none");
    // guided search: the baseline is the observation run; its racing pairs are reversed one per guided run
    const picker = inputs ? null : new GuidePicker(raceCandidates(base.trace.events));
    // which pair a guided run reverses is drawn from the job's seed (scrambled: neighbouring jobs pick apart)
    const guideRng = createRng(job.options.seedStart, { scramble: true });

    const nextSpec = (): RunSpec => {
      const i = pick++;
      let strategy: NodeJobStrategy = job.options.strategy;
      let params = { ...strategyParams };
      let seed = job.options.seedStart + i;
      if (seeds.length > 0 && i % 4 === 3) { // every 4th run continues from a corpus entry with a fresh seed
        const s = seeds[(i >> 2) % seeds.length]!;
        strategy = s.strategy; params = { ...s.params }; seed = s.seed + 7919 * (i + 1);
      } else if (picker && picker.size > 0 && i % 4 === 1) { // every 4th run reverses a racing pair, novel pairs first
        const c = picker.next(rec.features, guideRng.unit());
        if (c) { strategy = "guided"; params = guideParams(c); }
      }
      if (params.events === undefined && observedEvents > 0) params.events = observedEvents;
      const input = inputs?.next();
      const spec: RunSpec = { ...commandFor(script, args, input, ctx.workDir, String(i)), strategy, params, seed, timeoutMs, coverage: knobs.coverage, signal: ctx.signal, sandbox: ctx.sandbox };
      if (input) inputOf.set(spec, input);
      return spec;
    };
    const lane = async () => {
      while (more()) {
        const spec = nextSpec();
        const ex = await execute(spec, pool);
        await absorb(ex, ex.trace?.strategy.name ?? spec.strategy);
      }
    };
    await Promise.all(Array.from({ length: knobs.jobs }, lane));
  } finally {
    pool?.close();
  }

  async function absorb(ex: Execution, strategyName: string): Promise<void> {
    rec.exec(1, strategyName);
    if (ex.coverage) cov.add(ex.coverage);
    const input = inputOf.get(ex.spec);
    // The unperturbed baseline's features are seen but credited to no strategy and make no candidate.
    const creditable = ex.spec.strategy !== "none" || input !== undefined;
    const fresh = rec.addFeatures(ex.features, creditable ? strategyName : []);
    if (fresh.length > 0 && creditable) {
      const strategy = { strategy: ex.spec.strategy, params: ex.spec.params, seed: ex.spec.seed, ...(input ? { input: Buffer.from(input).toString("base64") } : {}) };
      if (input) inputs?.add(input);
      rec.candidate({
        data: input ? Buffer.from(input).toString("base64") : Buffer.from(JSON.stringify({ ...strategy, fingerprint: ex.fingerprint })).toString("base64"),
        strategy, features: fresh.slice(0, 100_000), execTimeUs: Math.round(ex.result.durationMs * 1000),
      });
    }
    if (ex.outcome.kind !== "ok") {
      const key = failures.keyOf(ex.outcome);
      if (rec.claim(key)) {
        rec.credit(strategyName, "findings");
        rec.keep(key, await confirm(withInput(ex.outcome, input, args)));
      }
    }
    rec.progress();
  }

  async function confirm(f: FindingFor<"node">): Promise<Finding> {
    const same = sameFailureAs(f, dirname(script));
    let k = 0;
    for (let i = 0; i < knobs.confirmRuns && !ctx.signal.aborted; i++) {
      const input = f.reproducer.input !== undefined ? new Uint8Array(Buffer.from(f.reproducer.input, "base64")) : undefined;
      const cmd = commandFor(script, args, input, ctx.workDir, `confirm-${i}`);
      const r = await replayOnce(cmd.script, cmd.args, f.reproducer, timeoutMs, ctx);
      if (same(r.outcome)) k++;
    }
    return { ...f, detail: { ...f.detail, reproduced: `${k}/${knobs.confirmRuns}`, confirmed: k > 0 } };
  }

  const coverage = cov.toJSON();
  const total = statementTotal(coverage) + [...rec.features].filter((f) => f.startsWith("race:")).length;
  return rec.result({ featureTotal: total, coverage: knobs.coverage ? (coverage as Record<string, unknown>) : undefined });
}

async function reproduce(target: { path: string }, repro: ReproducerFor<"node">, ctx: EngineRunContext): Promise<Outcome> {
  const script = resolve(target.path);
  const bad = checkTarget(script);
  if (bad) throw new FuzzFarmError(JOB_ERROR_KINDS[bad.kind].code, bad.message);
  const o = repro.options;
  const input = repro.input !== undefined ? new Uint8Array(Buffer.from(repro.input, "base64")) : undefined;
  const cmd = commandFor(script, o.args ?? [], input, ctx.workDir, `repro-${randomInt(1e9)}`);
  if (!repro.trace) {
    // no recorded schedule: the seed alone (explores again, rarely the same order)
    const ex = await execute({ ...cmd, strategy: o.strategy ?? "mix", params: o.params ?? {}, seed: repro.seed ?? randomInt(2 ** 31 - 1), timeoutMs: o.timeoutMs ?? 10_000, signal: ctx.signal, sandbox: ctx.sandbox });
    return withInput(ex.outcome, input, o.args ?? []);
  }
  return withInput((await replayOnce(cmd.script, cmd.args, repro, o.timeoutMs ?? 10_000, ctx)).outcome, input, o.args ?? []);
}

/**
 * Farm minimize jobs: delta debugging over the held callbacks of the recorded
 * schedule (minimizeSchedule). The reduced reproducer replays the same trace
 * with only the minimal hold set forced; the explanation says which callback
 * was delayed past which. A candidate counts only when `stillFails` (the
 * job's bucket, by triage's same-bug rule) holds for its replay.
 */
async function minimize(target: { path: string }, repro: ReproducerFor<"node">, stillFails: (o: Outcome) => boolean, ctx: EngineRunContext): Promise<Minimized> {
  const trace = repro.trace;
  if (!trace || !Array.isArray(trace.events)) throw new FuzzFarmError("FF_ERR_BAD_JOB", "this reproducer has no recorded schedule to minimize");
  const o = repro.options;
  const input = repro.input !== undefined ? new Uint8Array(Buffer.from(repro.input, "base64")) : undefined;
  const cmd = commandFor(resolve(target.path), o.args ?? [], input, ctx.workDir, "minimize");
  // the run's own seed: what the schedule does not fix (a worker thread's stalls) is drawn from it again
  const m = await minimizeSchedule({ script: cmd.script, args: cmd.args, trace: { ...trace, seed: repro.seed ?? trace.seed }, timeoutMs: o.timeoutMs ?? 10_000, signal: ctx.signal, sandbox: ctx.sandbox, sameFailure: stillFails });
  if (!m.reproduced) throw new FuzzFarmError("FF_ERR_BAD_JOB", "the recorded schedule no longer fails: nothing to minimize");
  return {
    reproducer: { ...repro, trace: { ...trace, holdSet: m.held } },
    explanation: m.text,
    originalSize: m.originalHeld.length,
    size: m.held.length,
    tries: m.runs,
  };
}

/** The Node event fuzzer as a farm engine. */
export const nodeEngine: Engine<"node"> = { name: "node", selfTest, run, reproduce, minimize };
