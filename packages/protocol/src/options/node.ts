// The Node event-loop engine's data as it crosses packages: its job options
// (what `-o` sets), the strategy a corpus entry records, and its reproducer
// (the options and the recorded schedule a replay needs). Owned by
// packages/engine-node; typed here so the coordinator, the worker and the
// database read them without re-casting.
import { z } from "zod";
import { NODE_JOB_STRATEGIES } from "./node-strategies";

export { NODE_STRATEGIES, NODE_JOB_STRATEGIES, type NodeStrategy, type NodeJobStrategy } from "./node-strategies";

/**
 * A strategy's numeric parameters (max delay ms, delay probability, PCT depth, the guided pair
 * guideA/guideB, the observed event count...). Engine switches are options of their own (warm,
 * coverage, jobs, confirmRuns), not parameters.
 */
export const NodeParams = z.record(z.string(), z.number());
export type NodeParams = z.infer<typeof NodeParams>;

/** Options of the engine itself, once spelled as 0/1 parameters: refused in `params` so an old spelling is not silently ignored. */
const ENGINE_SWITCHES = ["warm", "jobs", "coverage", "confirmRuns"] as const;

/** Options of the Node event-loop engine (owned by packages/engine-node). */
export const NodeOptions = z
  .object({
    /** Perturbation strategy. Default "mix". */
    strategy: z.enum(NODE_JOB_STRATEGIES).default("mix"),
    /** Strategy parameters (see NodeParams). Default {}. */
    params: NodeParams.default({}),
    /** First seed of the job; run i uses seedStart + i. Default 0. */
    seedStart: z.number().int().default(0),
    /** Wall-clock limit of one run before it is reported as a hang, ms. Default 10000. */
    timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    /** Program arguments after the script. Default []. */
    args: z.array(z.string()).default([]),
    /** Run in warm worker threads (true) or spawn a process per run (false). Default true (JavaScript targets only). */
    warm: z.boolean().default(true),
    /** Runs in flight at once. Default: the worker's number of CPUs. */
    jobs: z.number().int().min(1).max(1024).optional(),
    /** Collect istanbul coverage and `cov:` features. Default true. */
    coverage: z.boolean().default(true),
    /** Replays of a finding's schedule to confirm it. Default 3. */
    confirmRuns: z.number().int().min(1).max(1000).default(3),
  })
  .refine((o) => o.strategy !== "guided" || (Number.isInteger(o.params.guideA) && Number.isInteger(o.params.guideB)), {
    message: "strategy guided needs params guideA and guideB (the racing pair it reverses)",
    path: ["params"],
  })
  .refine((o) => !ENGINE_SWITCHES.some((k) => k in o.params), {
    message: `${ENGINE_SWITCHES.join(", ")} are options of their own (e.g. -o warm=false), not strategy parameters`,
    path: ["params"],
  });
export type NodeOptions = z.infer<typeof NodeOptions>;

/** What a Node corpus entry records: the run that brought new features, to be continued with fresh seeds. */
export const NodeSeedStrategy = z.object({
  strategy: z.enum(NODE_JOB_STRATEGIES),
  params: NodeParams.default({}),
  /** The run's seed (the engine continues the entry from it with fresh seeds). */
  seed: z.number().int().optional(),
  /** `fuzz(data)` targets: the run's input (base64). */
  input: z.string().optional(),
});
export type NodeSeedStrategy = z.infer<typeof NodeSeedStrategy>;

/** One delivered callback of a recorded schedule, as a replay needs it. */
export const NodeScheduleEvent = z.looseObject({
  id: z.string(),
  seq: z.number(),
  held: z.boolean(),
  /** Delivery time, ms since the run started. */
  t: z.number(),
  /** Delivered through the thread pool. */
  tp: z.boolean().optional(),
});

/**
 * A recorded schedule (engine-node's ReplaySpec plus how it was made): the delivered events in order and
 * the callbacks a replay holds back (null: every recorded hold). Loose: a trace written by `--trace-out`
 * carries more facts, which travel along.
 */
export const NodeSchedule = z.looseObject({
  events: z.array(NodeScheduleEvent),
  holdSet: z.array(z.string()).nullable().optional(),
  /** Directory the recorded sites are relative to. */
  root: z.string().optional(),
  /** The strategy (as the preload named it) and parameters the schedule was recorded under. */
  strategy: z.object({ name: z.string(), params: NodeParams }).optional(),
  seed: z.number().optional(),
  /** Order-insensitive digest of the delivered sites. */
  fingerprint: z.string().optional(),
  /** How the recording's worker threads stalled after their posts (engine-node's slow thread): a replay stalls the same posts. */
  threads: z.object({ stallProb: z.number(), stallSteps: z.number(), stallMs: z.number(), stalls: z.number() }).nullable().optional(),
});
export type NodeSchedule = z.infer<typeof NodeSchedule>;

/** Everything needed to run a Node finding again. */
export const NodeReproducer = z.object({
  engine: z.literal("node"),
  /** `fuzz(data)` targets: the input (base64). */
  input: z.string().optional(),
  /** Seed of the perturbation (used when there is no recorded schedule). */
  seed: z.number().int().optional(),
  /** The run's options: strategy, parameters, timeout and program arguments. */
  options: z
    .object({
      strategy: z.enum(NODE_JOB_STRATEGIES).optional(),
      params: NodeParams.optional(),
      timeoutMs: z.number().int().optional(),
      args: z.array(z.string()).optional(),
    })
    .default({}),
  /** The recorded schedule a replay follows. */
  trace: NodeSchedule.optional(),
});
export type NodeReproducer = z.infer<typeof NodeReproducer>;
