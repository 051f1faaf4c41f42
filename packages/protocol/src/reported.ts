// What a result may say about a finding, and how a replay, minimize or repro
// run's reproducer is rebuilt from it.
//
//   worker: engine finding --reportedReproducer()--> result (strict schema, capped)
//   coordinator / CLI: stored report + the campaign's stored config --jobReproducer()--> signed job / local run
//
// Anyone holding the worker's Redis user can publish a result, so a result is
// data, never a command: it names the run it saw (input bytes, seeds, the
// recorded schedule, the generated program, the configuration it failed in)
// and nothing a run executes or reads: optimizer commands and directories,
// program arguments, limits and module files come from the campaign as it was
// stored at creation, the bucket from the job row. A result naming any of them
// fails its schema.
import { z } from "zod";
import { MAX_ARTIFACT_BYTES } from "./job";
import type { CampaignConfig } from "./campaign-config";
import { FuzzFarmError } from "./errors";
import { NodeParams, NodeSchedule, type NodeReproducer } from "./options/node";
import { NODE_JOB_STRATEGIES } from "./options/node-strategies";
import { WasmGenerator, WasmOptLevel, WasmRunConfig, WasmRunSpec, JsonValue, type WasmReproducer } from "./options/wasm";
import type { InputReproducer } from "./options/input";
import { Reproducer } from "./outcome";

/**
 * Size caps of a result, checked before it is parsed (the raw payload) and by its schema (each field). A legitimate
 * result stays far below them: the worker truncates messages and stacks to them and refuses to publish more.
 */
export const RESULT_LIMITS = {
  /** The whole result as JSON text (as read from Redis, or an HTTP body). */
  resultBytes: 16 * 1024 * 1024,
  /** A result's istanbul coverage map as JSON text. */
  coverageBytes: 8 * 1024 * 1024,
  /** A finding's one-line message (the database keeps 2,000 characters of it). */
  messageChars: 4096,
  /** A finding's stack or stderr excerpt (the database keeps 32,768 characters of it). */
  stackChars: 64 * 1024,
  /** A finding's detail as JSON text. */
  detailBytes: 64 * 1024,
  /** Events of a recorded Node schedule. */
  traceEvents: 200_000,
  /** Any other reported text (strategy and tier names, oracle names, outcomes). */
  nameChars: 200,
} as const;

/** A JSON value no longer than `max` characters of JSON text. */
export const jsonCapped = <S extends z.ZodType>(schema: S, max: number, what: string) =>
  schema.refine((v) => v === undefined || JSON.stringify(v).length <= max, { message: `${what} is over ${max} bytes of JSON` });

const name = z.string().max(RESULT_LIMITS.nameChars);
const artifact = z.string().max(MAX_ARTIFACT_BYTES);

/** An input-engine finding as a result reports it: the input and the mutator seed (limits and root are the campaign's). */
export const ReportedInputReproducer = z.strictObject({
  engine: z.literal("input"),
  input: artifact.optional(),
  seed: z.number().int().optional(),
  options: z.strictObject({}).default({}),
});

/** A Node finding as a result reports it: input, seed, strategy and the recorded schedule (timeout and arguments are the campaign's). */
export const ReportedNodeReproducer = z.strictObject({
  engine: z.literal("node"),
  input: artifact.optional(),
  seed: z.number().int().optional(),
  options: z.strictObject({ strategy: z.enum(NODE_JOB_STRATEGIES).optional(), params: NodeParams.optional() }).default({}),
  // `root` of a trace only names the directory its sites are relative to: a label, never read or run.
  trace: jsonCapped(
    NodeSchedule.refine((t) => t.events.length <= RESULT_LIMITS.traceEvents, { message: `a schedule of more than ${RESULT_LIMITS.traceEvents} events` }),
    MAX_ARTIFACT_BYTES,
    "the schedule",
  ).optional(),
});

/** A wasm finding's recorded run as a result reports it: no module file (a litmus finding replays the campaign's target). */
export const ReportedWasmTrace = z.strictObject({
  wat: artifact.optional(),
  program: jsonCapped(JsonValue, MAX_ARTIFACT_BYTES, "the program").optional(),
  expected: artifact.optional(),
  outcome: name.nullable().optional(),
  spec: jsonCapped(WasmRunSpec, 1024 * 1024, "the schedule").nullable().optional(),
  decisions: z.array(z.number()).max(1_000_000).optional(),
  config: WasmRunConfig.extend({ tier: name }).optional(),
  oracle: name.optional(),
});

/**
 * A wasm finding as a result reports it: the generated program's seed and configuration, the schedule and the
 * configuration it failed in (a tier is a name the worker's configuration resolves). Optimizer, fault and runs per
 * program are the campaign's.
 */
export const ReportedWasmReproducer = z.strictObject({
  engine: z.literal("wasm"),
  seed: z.number().int().optional(),
  options: z
    .strictObject({
      generator: WasmGenerator.optional(),
      strategy: name.optional(),
      tier: name.optional(),
      opt: WasmOptLevel.nullable().optional(),
      litmus: z.boolean().optional(),
      runIndex: z.number().int().optional(),
      scheduleSeed: z.number().int().optional(),
    })
    .default({}),
  trace: ReportedWasmTrace.optional(),
});

/** A finding's reproducer as a result may carry it (one strict shape per engine). */
export const ReportedReproducer = z.discriminatedUnion("engine", [ReportedInputReproducer, ReportedNodeReproducer, ReportedWasmReproducer]);
export type ReportedReproducer = z.infer<typeof ReportedReproducer>;

const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** The part of an engine's reproducer a result reports (see the header): what the worker publishes. */
export function reportedReproducer(r: Reproducer): ReportedReproducer {
  if (r.engine === "input") return defined({ engine: "input" as const, input: r.input, seed: r.seed, options: {} });
  if (r.engine === "node") return defined({ engine: "node" as const, input: r.input, seed: r.seed, options: defined({ strategy: r.options.strategy, params: r.options.params }), trace: r.trace });
  const { generator, strategy, tier, opt, litmus, runIndex, scheduleSeed } = r.options;
  const { file: _file, ...trace } = r.trace ?? {};
  return defined({
    engine: "wasm" as const,
    seed: r.seed,
    options: defined({ generator, strategy, tier, opt, litmus, runIndex, scheduleSeed }),
    trace: r.trace ? defined(trace) : undefined,
  });
}

/**
 * The reproducer a replay, minimize or repro run executes: the stored finding's run (its reported part only, so a
 * report stored before results were checked, or a forged one, adds nothing) with the campaign's own options as
 * stored at its creation. Throws FF_ERR_BAD_JOB when the stored reproducer does not parse or is another engine's.
 */
export function jobReproducer(stored: unknown, config: CampaignConfig): Reproducer {
  // Stored reports may predate the strict shape: read them leniently, keep only what a result may report.
  const lenient = Reproducer.safeParse(stored);
  if (!lenient.success) throw new FuzzFarmError("FF_ERR_BAD_JOB", `the stored reproducer does not parse: ${lenient.error.issues[0]?.path.join(".")}: ${lenient.error.issues[0]?.message}`);
  const r = reportedReproducer(lenient.data);
  if (r.engine !== config.engine) throw new FuzzFarmError("FF_ERR_BAD_JOB", `the stored reproducer is the ${r.engine} engine's, the campaign runs ${config.engine}`);
  if (r.engine === "input" && config.engine === "input") {
    const o = config.options;
    return { ...r, options: { timeoutMs: o.timeoutMs, maxMemoryMb: o.maxMemoryMb, root: o.root } } satisfies InputReproducer;
  }
  if (r.engine === "node" && config.engine === "node") {
    const o = config.options;
    return { ...r, options: { ...r.options, timeoutMs: o.timeoutMs, args: o.args } } satisfies NodeReproducer;
  }
  if (r.engine === "wasm" && config.engine === "wasm") {
    const o = config.options;
    return { ...r, options: { ...r.options, runsPerProgram: o.runsPerProgram, fault: o.fault, optimizer: o.optimizer, optimizerCmd: o.optimizerCmd } } satisfies WasmReproducer;
  }
  throw new FuzzFarmError("FF_ERR_BAD_JOB", `no reproducer for engine ${r.engine}`);
}

/** Optimizer commands and directories a reproducer or job options would run (wasm only). */
export function optimizersOf(o: { optimizer?: string | null; optimizerCmd?: string | null } | undefined): { field: "optimizer" | "optimizerCmd"; value: string }[] {
  const out: { field: "optimizer" | "optimizerCmd"; value: string }[] = [];
  if (o?.optimizer) out.push({ field: "optimizer", value: o.optimizer });
  if (o?.optimizerCmd) out.push({ field: "optimizerCmd", value: o.optimizerCmd });
  return out;
}
