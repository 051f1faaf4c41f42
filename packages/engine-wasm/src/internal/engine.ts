// The wasm engine behind the protocol's Engine interface.
//   job.target.path  - a generator preset name (default, small, wide, deep, rmw, sync),
//                      a .json file with a generator configuration, or a litmus
//                      module (.wasm / .wat) to run in litmus mode;
//   job.options      - generator overrides, strategy, seedStart, runsPerProgram, optimizer(Cmd);
//   job.seeds        - corpus entries whose `strategy` is {generator, seed}: re-checked first
//                      under fresh schedules.
// Every program is checked by the harness (harness.ts); failures are minimized
// and returned as findings. Bad input becomes `error`, never an exception.
// `options.engines` are configuration ids picked out of what the worker offers
// (runner/offered.ts: its operator names command engines and binaries); any
// other id refuses the job before anything runs.
import { existsSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { FuzzFarmError, jobErrorOf, type Engine, type EngineResultInputFor, type EngineRunContext, type Finding, type JobFor, type Outcome, type ReproducerFor } from "@fuzzfarm/protocol";
import { GEN_PRESETS, parseGenConfig, type GenConfig } from "./gen/config";
import { generate } from "./gen/generate";
import { programFromJson, programToJson } from "./gen/shape";
import { emitWat } from "./gen/emit";
import { minimizeProgram } from "./minimize";
import { Harness, expectedOf, type CheckOptions, type ProgramFinding } from "./harness";
import { minimizeFinding, toFinding } from "./findings";
import { loadLitmus, runLitmus } from "./litmus/litmus";
import type { OptimizerSource } from "./optimize";
import { probeOptimizer, withinOptimizer } from "./optimizer/probe";
import { checkStrategy, runSpec } from "./runner/strategies";
import { checkEngineIds, offeredIds, offeredSpecs, type WasmEngineOptions } from "./runner/offered";
import type { EngineSpec } from "./runner/engines";
import type { RunSpec } from "./runner/supervisor";
import { JobRecorder } from "@fuzzfarm/corpus";
import { subSeed } from "./sub-seed";

/** A corpus candidate of this engine, as its `run` returns them. */
type Candidate = NonNullable<Awaited<ReturnType<Engine<"wasm">["run"]>>["corpus"]>[number];

export type WasmTarget = { kind: "generator"; config: GenConfig; name: string } | { kind: "litmus"; file: string };

/** Resolve `target.path` (see the header). Throws FuzzFarmError. */
export function resolveTarget(path: string, overrides: Record<string, unknown> = {}): WasmTarget {
  if (/\.(wasm|wat)$/.test(path)) {
    if (!existsSync(path)) throw new FuzzFarmError("FF_ERR_TARGET_NOT_FOUND", `no such module: ${path}`);
    return { kind: "litmus", file: path };
  }
  const name = path.replace(/^generator:/, "");
  if (name in GEN_PRESETS) return { kind: "generator", name, config: parseGenConfig({ preset: name, ...overrides }) };
  if (path.endsWith(".json")) {
    if (!existsSync(path)) throw new FuzzFarmError("FF_ERR_TARGET_NOT_FOUND", `no such generator configuration: ${path}`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, "utf8"));
    } catch {
      throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `${path}: not JSON`);
    }
    return { kind: "generator", name: path, config: parseGenConfig({ ...(raw as Record<string, unknown>), ...overrides }) };
  }
  throw new FuzzFarmError("FF_ERR_TARGET_NOT_FOUND", `'${path}' is neither a generator preset (${Object.keys(GEN_PRESETS).join(", ")}), a .json configuration nor a .wasm/.wat litmus module`);
}

async function runGenerator(t: Extract<WasmTarget, { kind: "generator" }>, job: JobFor<"wasm">, ctx: EngineRunContext, rec: JobRecorder<Candidate>, engines: EngineSpec[]): Promise<void> {
  const o = job.options;
  const optimizer: OptimizerSource = { path: o.optimizer, cmd: o.optimizerCmd };
  // Generate within what the optimizer under test supports; one that cannot work at all fails the job (FF_ERR_CONFIG).
  const config = withinOptimizer(t.config, await probeOptimizer(optimizer));
  const h = new Harness({}, { sandbox: ctx.sandbox, engines });
  const deadline = rec.startedAt + job.budget.seconds * 1000;
  const optLevels = ["O1", "O2", "O3", "Os"] as const;
  try {
    const queue: number[] = [];
    for (const s of job.seeds) {
      const seed = (s.strategy as { seed?: unknown }).seed;
      if (typeof seed === "number") queue.push(seed);
    }
    let next = o.seedStart;
    for (let i = 0; ; i++) {
      if (ctx.signal.aborted || performance.now() > deadline || rec.execs >= job.budget.runs) break;
      const fromCorpus = queue.length > 0;
      const seed = fromCorpus ? queue.shift()! : next++;
      const p = generate(seed, config);
      // Corpus seeds get fresh schedules: the schedule seed is salted by the job.
      const salt = fromCorpus ? subSeed(seed, hashStr(job.jobId)) : seed;
      const opts: Partial<CheckOptions> = {
        strategy: o.strategy, runs: o.runsPerProgram, optimizer, optLevels: [optLevels[i % optLevels.length]!], tiers: true, engines: o.engines ?? [],
        ...(o.fault ? { fault: o.fault } : {}),
      };
      const report = await h.check({ ...p, seed: salt }, opts);
      rec.exec(report.execs, o.strategy);
      const fresh = rec.addFeatures(report.features, o.strategy);
      if (fresh.length && !fromCorpus)
        rec.candidate({
          data: Buffer.from(JSON.stringify({ generator: config, seed })).toString("base64"),
          strategy: { generator: { ...config }, seed },
          features: fresh.slice(0, 10_000),
          execTimeUs: Math.round((report.ms * 1000) / Math.max(1, report.execs)),
        });
      // Per-engine yield (the campaign page lists it beside the strategies): each compared configuration.
      for (const id of o.engines ?? []) {
        rec.credit(`engine:${id}`, "execs", report.execsBy[id] ?? 0);
        rec.credit(`engine:${id}`, "findings", report.findings.filter((f) => f.config.tier === id).length);
      }
      for (const f of report.findings) {
        const key = `${f.oracle}:${f.config.tier}:${f.config.opt}:${report.shape}`;
        if (!rec.claim(key)) continue;
        const budget = { deadline: Math.min(performance.now() + 20_000, deadline + 10_000) };
        const m = await minimizeFinding(h, { ...p, seed: salt }, f, opts, budget);
        // The optimizer under test goes into the reproducer: `reproduce` (replay and minimize jobs, `fuzzfarm
        // repro`) runs the reproducer alone, and without it would optimize with the project's own Binaryen.
        rec.keep(key, toFinding(m, p, config, o.strategy, {
          runsPerProgram: o.runsPerProgram, scheduleSeed: salt, ...(o.fault ? { fault: o.fault } : {}),
          ...(o.optimizer ? { optimizer: o.optimizer } : {}), ...(o.optimizerCmd ? { optimizerCmd: o.optimizerCmd } : {}),
        }));
        rec.credit(o.strategy, "findings");
      }
      rec.progress();
    }
  } finally {
    await h.close();
  }
}

async function runLitmusJob(t: Extract<WasmTarget, { kind: "litmus" }>, job: JobFor<"wasm">, ctx: EngineRunContext, rec: JobRecorder<Candidate>): Promise<void> {
  const m = await loadLitmus(t.file);
  const fileHash = createHash("sha256").update(m.bytes).digest("hex").slice(0, 12);
  const strategy = job.options.strategy === "mix" ? "auto" : job.options.strategy; // the farm default, mix, is the litmus default here
  const h = new Harness({}, { sandbox: ctx.sandbox });
  const deadline = rec.startedAt + job.budget.seconds * 1000;
  try {
    for (let round = 0; !ctx.signal.aborted && performance.now() < deadline && rec.execs < job.budget.runs; round++) {
      const runs = Math.min(job.options.runsPerProgram * 5, job.budget.runs - rec.execs);
      const seed = job.options.seedStart + round;
      const r = await runLitmus(h, m, { runs, strategy, seed });
      rec.exec(r.runs, strategy);
      rec.addFeatures(Object.keys(r.outcomes).map((oc) => `outcome:${fileHash}:${oc}`), strategy);
      for (const oc of r.forbiddenSeen ?? []) {
        const key = `litmus-sc:${oc}`;
        if (!rec.claim(key)) continue;
        rec.credit(strategy, "findings");
        rec.keep(key, {
          kind: "oracle", oracle: "litmus-sc",
          message: `outcome ${oc} is not allowed by sequential consistency`,
          stack: `allowed outcomes: ${r.allowed!.join("  ")}\nobserved: ${JSON.stringify(r.outcomes)}${r.plainAccesses ? "\nnote: the threads make plain accesses; racing plain accesses may legally give non-SC outcomes" : ""}`,
          reproducer: { engine: "wasm", seed, options: { strategy, litmus: true, runIndex: r.firstSeen[oc] }, trace: { file: t.file, spec: r.firstSpec[oc] ?? runSpec(strategy, seed, r.firstSeen[oc]!, m.threads.length), outcome: oc } },
          detail: { oracle: "litmus-sc", file: t.file, outcome: oc, count: r.outcomes[oc], plainAccesses: r.plainAccesses },
        });
      }
      for (const [kind, n] of Object.entries(r.errors)) {
        const key = `litmus-err:${kind}`;
        if (!rec.claim(key)) continue;
        const f: Finding = kind === "crash"
          ? { kind: "crash", crashKind: "signal", message: `engine process died running ${t.file}`, stack: "", reproducer: { engine: "wasm", seed, options: { strategy, litmus: true }, trace: { file: t.file } }, detail: {} }
          : { kind: "hang", timeoutMs: 3000, message: `${kind} in ${n} of ${r.runs} runs of ${t.file}`, stack: "", reproducer: { engine: "wasm", seed, options: { strategy, litmus: true }, trace: { file: t.file } }, detail: { kind } };
        rec.keep(key, f);
      }
      rec.progress();
      if (r.exhausted) break; // dfs ran every schedule: another round would repeat them
    }
  } finally {
    await h.close();
  }
}

function hashStr(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * The wasm engine of one worker: `opts` names the engine binaries its jobs may pick by name (command
 * engines, the Deno and Bun binaries). Throws FF_ERR_CONFIG on a bad command engine name or command.
 */
export function createWasmEngine(opts: WasmEngineOptions = {}): Engine<"wasm"> {
  const specs = offeredSpecs(opts);
  const commands = specs.filter((s) => s.kind === "cmd").map((s) => s.name!);
  /** Engines the self-test found unable to run the runner at all (name -> why): left out of the offer. */
  const unusable = new Map<string, string>();
  const offered = () => offeredIds(specs.filter((s) => !unusable.has(s.name ?? s.kind)));
  const checkJob = (job: JobFor<"wasm">) => {
    try {
      checkEngineIds(job.options.engines, offered());
    } catch (e) {
      const why = [...unusable].filter(([n]) => job.options.engines.some((id) => id.split(":")[0] === n)).map(([, w]) => w);
      throw why.length ? new FuzzFarmError("FF_ERR_BAD_JOB", `${(e as Error).message}; left out at start-up: ${why.join("; ")}`) : e;
    }
  };

  const engine: Engine<"wasm"> = {
    name: "wasm",
    checkJob,
    capabilities: offered,

    async selfTest(): Promise<void> {
      const h = new Harness({}, { engines: specs });
      try {
        // One program that must pass its oracles, and the same program with an atomic RMW
        // narrowed (a deterministic miscompilation) that must be caught.
        const p = generate(1001, parseGenConfig({}));
        // The configured command engines run it too: a command that does not start or does not speak the
        // runner protocol is found here, at start-up, not in the first job naming it.
        const ok = await h.check(p, { runs: 6, strategy: "race", tiers: false, optLevels: [], engines: commands }).catch((e) => {
          throw new FuzzFarmError("FF_ERR_ENGINE_SELFTEST", `wasm engine: a configured engine (${commands.join(", ")}) failed to run a correct program: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
        });
        if (ok.findings.length)
          throw new FuzzFarmError("FF_ERR_ENGINE_SELFTEST", `wasm engine: a correct program failed its oracles on ${ok.findings[0]!.config.tier}: ${ok.findings[0]!.message}`);
        // A Deno or Bun binary the operator named (FUZZFARM_DENO_PATH / FUZZFARM_BUN_PATH; the pinned npm ones are
        // known to work) may be a release that cannot run the runner: it is left out of the offer, with why.
        for (const s of specs.filter((x) => (x.kind === "deno" || x.kind === "bun") && x.path && existsSync(x.path)))
          await h.assertUsable(s.kind).catch((e: unknown) => unusable.set(s.kind, e instanceof Error ? e.message : String(e)));
        const bad = await h.check(p, { runs: 2, strategy: "race", tiers: false, optLevels: [], fault: { kind: "narrow", where: "all" } });
        if (!bad.faultApplies || !bad.findings.length)
          throw new FuzzFarmError("FF_ERR_ENGINE_SELFTEST", "wasm engine: an injected fault (narrowed atomic RMW) was not caught");
      } finally {
        await h.close();
      }
    },

    async run(job: JobFor<"wasm">, ctx: EngineRunContext): Promise<EngineResultInputFor<"wasm">> {
      const rec = new JobRecorder<Candidate>({ onProgress: ctx.onProgress });
      let error: EngineResultInputFor<"wasm">["error"];
      try {
        checkJob(job);
        const target = resolveTarget(job.target.path, job.options.generator);
        checkStrategy(job.options.strategy, target.kind === "litmus");
        if (target.kind === "litmus") await runLitmusJob(target, job, ctx, rec);
        else await runGenerator(target, job, ctx, rec, specs);
      } catch (e) {
        error = jobErrorOf(e);
      }
      return rec.result({ error });
    },

    async reproduce(target: { path: string }, repro: ReproducerFor<"wasm">, ctx: EngineRunContext): Promise<Outcome> {
      const trace = repro.trace ?? {};
      const opts = repro.options;
      const h = new Harness({}, { sandbox: ctx.sandbox, engines: specs });
      try {
        if (opts.litmus || /\.(wasm|wat)$/.test(target.path)) {
          const m = await loadLitmus(trace.file ?? target.path);
          const spec = trace.spec;
          const r = await runLitmus(h, m, { runs: 1, strategy: spec?.strategy ?? opts.strategy ?? "race", seed: repro.seed ?? 0 });
          const oc = Object.keys(r.outcomes)[0];
          if (oc && r.forbiddenSeen?.includes(oc))
            return { kind: "oracle", oracle: "litmus-sc", message: `outcome ${oc} is not allowed by sequential consistency`, stack: "", reproducer: repro, detail: {} };
          if (Object.keys(r.errors).length) return { kind: "hang", timeoutMs: 3000, message: Object.keys(r.errors).join(", "), stack: "", reproducer: repro, detail: {} };
          return { kind: "ok" };
        }
        const cfg = parseGenConfig(opts.generator ?? {});
        const p = trace.program ? programFromJson(trace.program) : generate(repro.seed ?? 0, cfg);
        const spec: RunSpec = trace.spec ?? runSpec(opts.strategy ?? "token", opts.scheduleSeed ?? p.seed, 0, p.threads.length);
        const config = trace.config ?? { tier: opts.tier ?? "default", opt: opts.opt ?? null };
        checkEngineIds([config.tier], offered());
        const f: ProgramFinding | null = await h.checkSpec(p, { optimizer: { path: opts.optimizer ?? null, cmd: opts.optimizerCmd ?? null }, fault: opts.fault ?? null, preferOracle: trace.oracle ?? null }, config, spec);
        if (!f) return { kind: "ok" };
        return toFinding({ program: p, finding: f, decisions: null, tries: 0 }, p, cfg, spec.strategy);
      } catch (e) {
        return { kind: "oracle", oracle: "reproduce-error", message: e instanceof Error ? e.message.split("\n")[0]! : String(e), stack: "", reproducer: repro, detail: {} };
      } finally {
        await h.close();
      }
    },

    /**
     * Farm minimize jobs: the program tree is reduced again (minimizeProgram), each candidate judged by a
     * real run through `reproduce` with the same recorded schedule, kept while `stillFails` (same bucket).
     * Findings are already minimized with a short budget when made; this pass has the job's budget.
     */
    async minimize(target: { path: string }, repro: ReproducerFor<"wasm">, stillFails: (o: Outcome) => boolean, ctx: EngineRunContext) {
      const trace = repro.trace;
      if (!trace?.program) throw new FuzzFarmError("FF_ERR_BAD_JOB", "only generated programs are minimized (a litmus module is the user's own)");
      const withProgram = (q: ReturnType<typeof programFromJson>): ReproducerFor<"wasm"> => ({
        ...repro,
        trace: { ...trace, program: programToJson(q), wat: emitWat(q), expected: expectedOf(q) },
      });
      const original = programFromJson(trace.program);
      const { program, tries } = await minimizeProgram(original, async (q) => !ctx.signal.aborted && stillFails(await engine.reproduce(target, withProgram(q), ctx)));
      const lines = (q: typeof program) => emitWat(q).split("\n").length;
      const [before, after] = [lines(original), lines(program)];
      return {
        reproducer: withProgram(program),
        explanation: `program reduced from ${before} to ${after} lines of .wat in ${tries} runs; it still fails the same oracle under the recorded schedule`,
        originalSize: before,
        size: after,
        tries,
      };
    },
  };
  return engine;
}

/** The wasm engine with no command engines and the Deno and Bun binaries of the pinned npm packages. */
export const wasmEngine: Engine<"wasm"> = createWasmEngine();
