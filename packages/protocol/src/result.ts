// What a worker sends back for one job (see the flow drawing in job.ts).
import { z } from "zod";
import { CRASH_KINDS, Finding, Reproducer } from "./outcome";
import { MAX_ARTIFACT_BYTES, type EngineName } from "./job";
import { jsonCapped, ReportedReproducer, RESULT_LIMITS } from "./reported";
import { InputSeedStrategy } from "./options/input";
import { NodeSeedStrategy } from "./options/node";
import { WasmSeedStrategy } from "./options/wasm";

/** A new corpus candidate: an input / seed that brought features the job had not seen, and what its engine recorded. */
const corpusCandidate = <S extends z.ZodType>(strategy: S) =>
  z.object({
    data: z.string().max(MAX_ARTIFACT_BYTES),
    strategy,
    parentId: z.string().optional(),
    /** Feature keys (coverage counters, race pairs, outcomes, reads-from pairs) first seen with it. */
    features: z.array(z.string()).max(100_000),
    execTimeUs: z.number().int().min(0).default(0),
  });

export const StrategyYield = z.record(
  z.string(),
  z.object({ execs: z.number().int(), newFeatures: z.number().int(), findings: z.number().int() }),
);
export type StrategyYield = z.infer<typeof StrategyYield>;

/** Why a job could not be run at all (as opposed to a finding in the target). */
export const JobError = z.object({
  kind: z.enum(["target-not-found", "target-invalid", "bad-job", "engine-unavailable", "internal"]),
  message: z.string(),
});
export type JobError = z.infer<typeof JobError>;

/** What a minimizer returns (an engine's own or the worker's delta debugging): a smaller reproducer that still fails as the same bug. */
export const Minimized = z.object({
  reproducer: Reproducer,
  /** In words: what was removed and what the remaining failure needs. */
  explanation: z.string().default(""),
  originalSize: z.number().int(),
  size: z.number().int(),
  /** Executions spent. */
  tries: z.number().int(),
});
export type Minimized = z.infer<typeof Minimized>;

/** The result-side Minimized: its reproducer as a result may report it (reported.ts). */
const ReportedMinimized = z.strictObject({
  reproducer: ReportedReproducer,
  explanation: z.string().max(RESULT_LIMITS.stackChars).default(""),
  originalSize: z.number().int(),
  size: z.number().int(),
  tries: z.number().int(),
});

const reportedFindingBase = {
  message: z.string().max(RESULT_LIMITS.messageChars),
  stack: z.string().max(RESULT_LIMITS.stackChars).default(""),
  reproducer: ReportedReproducer,
  detail: jsonCapped(z.record(z.string(), z.unknown()), RESULT_LIMITS.detailBytes, "a finding's detail").default({}),
};

/** A finding as a result carries it: strict, capped, its reproducer the reported part only (reported.ts). */
export const ReportedFinding = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("crash"), crashKind: z.enum(CRASH_KINDS), ...reportedFindingBase }),
  z.strictObject({ kind: z.literal("hang"), timeoutMs: z.number(), ...reportedFindingBase }),
  z.strictObject({ kind: z.literal("oracle"), oracle: z.string().max(RESULT_LIMITS.nameChars), ...reportedFindingBase }),
]);
export type ReportedFinding = z.infer<typeof ReportedFinding>;

/** What an engine returns for a job, its corpus candidates recording `strategy`. */
const engineResultOf = <S extends z.ZodType>(strategy: S) =>
  z.object({
    execs: z.number().int().min(0),
    /** Wall time the engine spent on the job, ms. */
    busyMs: z.number().min(0),
    /** Every feature key the job covered (the coordinator merges them into the campaign's set). */
    features: z.array(z.string()).max(1_000_000).default([]),
    /** Number of features of the feature space the job knows about (e.g. total coverage counters). */
    featureTotal: z.number().int().min(0).default(0),
    /** istanbul CoverageMapData (JSON) of the target's own code, hit counts of this job. */
    coverage: z.record(z.string(), z.unknown()).optional(),
    corpus: z.array(corpusCandidate(strategy)).max(10_000).default([]),
    findings: z.array(Finding).max(1_000).default([]),
    strategyYield: StrategyYield.default({}),
    error: JobError.optional(),
    /** minimize jobs: the smallest reproducer that still fails the same way, and how it was reduced. */
    minimized: Minimized.optional(),
  });

const ENGINE_RESULTS = {
  // a candidate may leave out what made it (input, wasm), as before: {}
  input: engineResultOf(InputSeedStrategy.prefault({})),
  node: engineResultOf(NodeSeedStrategy),
  wasm: engineResultOf(WasmSeedStrategy.prefault({})),
} as const;
/** What engine E's `run` returns (before defaults). */
export type EngineResultInputFor<E extends EngineName> = z.input<(typeof ENGINE_RESULTS)[E]>;
export type EngineResultFor<E extends EngineName> = z.infer<(typeof ENGINE_RESULTS)[E]>;
export type CorpusCandidateFor<E extends EngineName> = EngineResultFor<E>["corpus"][number];
export type CorpusCandidate = CorpusCandidateFor<EngineName>;

/**
 * Any engine's result, its corpus strategies read as plain records: for tools and tests that read counts
 * and findings. The job path parses results with JobResult, which checks them per engine.
 */
export const EngineResult = engineResultOf(z.record(z.string(), z.unknown()).default({}));
export type EngineResult = z.infer<typeof EngineResult>;
export type EngineResultInput = EngineResultInputFor<EngineName>;

/**
 * The results of engine E's three job kinds. Strict and capped (reported.ts): findings carry only what a result may
 * report, and no result names a bucket (the coordinator reads it from the job row).
 */
function resultsOf<E extends EngineName>(engine: E) {
  const id = z.string().min(1).max(300);
  const fields = {
    ...ENGINE_RESULTS[engine].omit({ minimized: true, findings: true, coverage: true, error: true, features: true }).shape,
    features: z.array(z.string().max(4096)).max(1_000_000).default([]),
    coverage: jsonCapped(z.record(z.string(), z.unknown()), RESULT_LIMITS.coverageBytes, "the coverage map").optional(),
    findings: z.array(ReportedFinding).max(1_000).default([]),
    error: z.strictObject({ kind: JobError.shape.kind, message: z.string().max(RESULT_LIMITS.stackChars) }).optional(),
    engine: z.literal(engine),
    jobId: id,
    campaignId: id,
    workerId: id,
    startedAt: z.string().max(100),
    finishedAt: z.string().max(100),
  };
  return z.discriminatedUnion("kind", [
    z.strictObject({ ...fields, kind: z.literal("fuzz").default("fuzz") }),
    z.strictObject({ ...fields, kind: z.literal("replay") }),
    z.strictObject({ ...fields, kind: z.literal("minimize"), minimized: ReportedMinimized.optional() }),
  ]);
}

/** What a worker sends back for a job: discriminated by engine, then by kind (as the job was). */
export const JobResult = z.discriminatedUnion("engine", [resultsOf("input"), resultsOf("node"), resultsOf("wasm")]);
export type JobResult = z.infer<typeof JobResult>;
export type JobResultInput = z.input<typeof JobResult>;
/** The result of a replay or minimize job (its bucket is the job row's). */
export type MaintenanceResult = Extract<JobResult, { kind: "replay" | "minimize" }>;

/**
 * Runtime schema of a heartbeat. Heartbeats are read from a Redis hash that
 * anything holding Redis credentials can write, so readers parse each entry
 * with this and drop what does not fit instead of failing on it.
 */
export const HeartbeatSchema = z.object({
  id: z.string().min(1).max(300),
  host: z.string().max(300),
  pid: z.number().int().min(0),
  version: z.string().max(100),
  engines: z.array(z.string().max(50)).max(20),
  currentJobId: z.string().max(300).nullable(),
  execsPerSec: z.number().finite().min(0),
  jobsDone: z.number().int().min(0),
  at: z.number().finite(),
  /** Sandbox of the worker's target processes (absent from workers older than it). */
  sandbox: z.enum(["fs", "net", "none"]).optional(),
  /** Per engine, what it offers on this worker (absent from workers older than it). */
  capabilities: z.record(z.string().max(50), z.array(z.string().max(100)).max(200)).optional(),
});

/** What a worker publishes every few seconds (Redis), and the coordinator mirrors into PostgreSQL. */
export interface Heartbeat {
  /** host:pid:random, unique per worker process. */
  id: string;
  host: string;
  pid: number;
  version: string;
  /** Engines that passed their start-up probe. */
  engines: string[];
  currentJobId: string | null;
  execsPerSec: number;
  jobsDone: number;
  /** ms since epoch. */
  at: number;
  /** Sandbox of its target processes: "net" (own network namespace, loopback only) or "none". */
  sandbox?: "fs" | "net" | "none";
  /** Per engine, what it offers on this worker (Engine.capabilities): the wasm engine's configuration ids. */
  capabilities?: Record<string, string[]>;
}
