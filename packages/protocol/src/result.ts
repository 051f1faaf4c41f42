// What a worker sends back for one job (see the flow drawing in job.ts).
import { z } from "zod";
import { Finding, Reproducer } from "./outcome";
import { ENGINE_NAMES, MAX_ARTIFACT_BYTES } from "./job";

/** A new corpus candidate: an input / seed that brought features the job had not seen. */
export const CorpusCandidate = z.object({
  data: z.string().max(MAX_ARTIFACT_BYTES),
  strategy: z.record(z.string(), z.unknown()).default({}),
  parentId: z.string().optional(),
  /** Feature keys (coverage counters, race pairs, outcomes, reads-from pairs) first seen with it. */
  features: z.array(z.string()).max(100_000),
  execTimeUs: z.number().int().min(0).default(0),
});
export type CorpusCandidate = z.infer<typeof CorpusCandidate>;

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

/** What an engine returns for a job. */
export const EngineResult = z.object({
  execs: z.number().int().min(0),
  /** Wall time the engine spent on the job, ms. */
  busyMs: z.number().min(0),
  /** Every feature key the job covered (the coordinator merges them into the campaign's set). */
  features: z.array(z.string()).max(1_000_000).default([]),
  /** Number of features of the feature space the job knows about (e.g. total coverage counters). */
  featureTotal: z.number().int().min(0).default(0),
  /** istanbul CoverageMapData (JSON) of the target's own code, hit counts of this job. */
  coverage: z.record(z.string(), z.unknown()).optional(),
  corpus: z.array(CorpusCandidate).max(10_000).default([]),
  findings: z.array(Finding).max(1_000).default([]),
  strategyYield: StrategyYield.default({}),
  error: JobError.optional(),
  /** minimize jobs: the smallest reproducer that still fails the same way, and how it was reduced. */
  minimized: z
    .object({ reproducer: Reproducer, explanation: z.string().default(""), originalSize: z.number().int(), size: z.number().int(), tries: z.number().int() })
    .optional(),
});
export type EngineResult = z.infer<typeof EngineResult>;
export type EngineResultInput = z.input<typeof EngineResult>;

export const JobResult = EngineResult.extend({
  jobId: z.string().min(1),
  campaignId: z.string().min(1),
  workerId: z.string().min(1),
  engine: z.enum(ENGINE_NAMES),
  kind: z.enum(["fuzz", "replay", "minimize"]).default("fuzz"),
  /** replay / minimize results: the bucket of the job (the coordinator applies the result to it). */
  bucketId: z.string().min(1).optional(),
  startedAt: z.string(),
  finishedAt: z.string(),
});
export type JobResult = z.infer<typeof JobResult>;

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
