// PARALLEL WORK: several engineers share this working tree. Before any git commit or npm install read
// /work/main/CONTRIBUTING.md (git: commit only your paths under flock; npm: install only under flock).
// The job protocol between the coordinator and the workers.
//
//   coordinator                       Redis (BullMQ)                    worker
//   -----------                       --------------                    ------
//   plan job from corpus  --JobPayload-->  queue "ff:jobs"  --------->  validate (schema)
//   (reads PostgreSQL)                                                  engine.run(job)
//                                                                       (no database, no tokens)
//   persist, triage    <--JobResult---  queue "ff:results" <---------  validate, enqueue result
//   (idempotent by job id)                                              complete the job
//
// A job delivered twice (worker killed, lock lost) produces two results with
// the same job id; the coordinator applies the first and drops the second.
import { z } from "zod";
import { InputOptions, InputReproducer, InputSeedStrategy } from "./options/input";
import { NodeOptions, NodeReproducer, NodeSeedStrategy } from "./options/node";
import { WasmOptions, WasmReproducer, WasmSeedStrategy } from "./options/wasm";
import { SameBugRule } from "./same-bug";

export const ENGINE_NAMES = ["input", "node", "wasm"] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/** fuzz: explore; replay: re-run a bucket's reproducer N times; minimize: shrink it. */
export const JOB_KINDS = ["fuzz", "replay", "minimize"] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** A campaign's status: running until its deadline, then how it ended. */
export const CAMPAIGN_STATUSES = ["running", "completed", "stopped", "failed"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** How a campaign ended. */
export type CampaignEndStatus = Exclude<CampaignStatus, "running">;

/** Largest input, trace or program accepted anywhere in the protocol (bytes of base64). */
export const MAX_ARTIFACT_BYTES = 4 * 1024 * 1024;

export const Budget = z.object({
  /** Stop after this many executions. */
  runs: z.number().int().min(1).max(1_000_000_000),
  /** Stop after this many seconds of wall time, whatever the run count. */
  seconds: z.number().min(0.1).max(86_400),
});
export type Budget = z.infer<typeof Budget>;

export const TargetRef = z.object({
  name: z.string().min(1),
  /** Absolute path on the worker (workers share the checkout, or a volume). */
  path: z.string().min(1),
  version: z.string().default("unversioned"),
});
export type TargetRef = z.infer<typeof TargetRef>;

/** A corpus entry handed to the worker as a starting point, with what its engine recorded about it. */
const seedInput = <S extends z.ZodType>(strategy: S) =>
  z.object({
    id: z.string().optional(),
    /** base64 bytes (input engine) or an engine-specific encoded seed. */
    data: z.string().max(MAX_ARTIFACT_BYTES),
    strategy,
  });

/**
 * The three kinds of job of one engine. A fuzz job explores from seeds; a replay job re-runs the reproducer
 * of bucket `bucketId`; a minimize job shrinks it while it stays the bucket's bug (`sameBug`: triage's
 * matchesBucket with the coordinator's buckets and root).
 */
function jobsOf<E extends EngineName, O extends z.ZodType, S extends z.ZodType, R extends z.ZodType>(engine: E, options: O, strategy: S, reproducer: R) {
  const common = {
    engine: z.literal(engine),
    jobId: z.string().min(1),
    campaignId: z.string().min(1),
    target: TargetRef,
    budget: Budget,
    options,
  };
  const bucketId = z.string().min(1);
  return z.discriminatedUnion("kind", [
    z.object({ ...common, kind: z.literal("fuzz").default("fuzz"), seeds: z.array(seedInput(strategy)).max(10_000).default([]) }),
    z.object({ ...common, kind: z.literal("replay"), bucketId, reproducer }),
    z.object({ ...common, kind: z.literal("minimize"), bucketId, reproducer, sameBug: SameBugRule }),
  ]);
}

export const InputJob = jobsOf("input", InputOptions, InputSeedStrategy.prefault({}), InputReproducer);
export const NodeJob = jobsOf("node", NodeOptions, NodeSeedStrategy, NodeReproducer);
export const WasmJob = jobsOf("wasm", WasmOptions, WasmSeedStrategy.prefault({}), WasmReproducer);

/** A job payload: discriminated by engine, then by kind. */
export const JobPayload = z.discriminatedUnion("engine", [InputJob, NodeJob, WasmJob]);
export type JobPayload = z.infer<typeof JobPayload>;
export type JobPayloadInput = z.input<typeof JobPayload>;
/** Jobs of kind K by engine (a map, so Engine<"wasm"> stays assignable to Engine<EngineName>). */
type JobsByEngine<K extends JobKind> = { [E in EngineName]: Extract<JobPayload, { engine: E; kind: K }> };
/** A job of engine E and kind K; by default the fuzz job an engine's `run` receives. */
export type JobFor<E extends EngineName, K extends JobKind = "fuzz"> = JobsByEngine<K>[E];
/** Every job of engine E (the engine's `checkJob` sees all kinds). */
export type AnyJobFor<E extends EngineName> = JobFor<E, JobKind>;
/** A replay or minimize job (of any engine). */
export type MaintenanceJob = Extract<JobPayload, { kind: "replay" | "minimize" }>;
/** What a seed of engine E records (SeedInput.strategy, CorpusCandidate.strategy). */
export type SeedStrategyFor<E extends EngineName> = JobFor<E>["seeds"][number]["strategy"];
/** A corpus entry handed to a worker (any engine). */
export type SeedInput = JobFor<EngineName>["seeds"][number];

/** Per engine, the schema of its `-o` options. */
export const ENGINE_OPTIONS = { input: InputOptions, node: NodeOptions, wasm: WasmOptions } as const;
/** Engine options as a user writes them (defaults not applied). */
export type EngineOptionsInput<E extends EngineName> = z.input<(typeof ENGINE_OPTIONS)[E]>;
