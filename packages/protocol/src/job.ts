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
import { InputOptions } from "./options/input";
import { NodeOptions } from "./options/node";
import { WasmOptions } from "./options/wasm";
import { Reproducer } from "./outcome";
import { SameBugRule } from "./same-bug";

export const ENGINE_NAMES = ["input", "node", "wasm"] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

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

/** A corpus entry handed to the worker as a starting point. */
export const SeedInput = z.object({
  id: z.string().optional(),
  /** base64 bytes (input engine) or an engine-specific encoded seed. */
  data: z.string().max(MAX_ARTIFACT_BYTES),
  strategy: z.record(z.string(), z.unknown()).default({}),
});
export type SeedInput = z.infer<typeof SeedInput>;

const jobBase = {
  jobId: z.string().min(1),
  campaignId: z.string().min(1),
  /** fuzz: explore; replay: re-run a reproducer N times; minimize: shrink it. */
  kind: z.enum(["fuzz", "replay", "minimize"]).default("fuzz"),
  target: TargetRef,
  budget: Budget,
  seeds: z.array(SeedInput).max(10_000).default([]),
  /** replay / minimize jobs: the bucket and the reproducer to work on. */
  bucketId: z.string().optional(),
  reproducer: Reproducer.optional(),
  /** minimize jobs: the bug to keep (triage's matchesBucket with the coordinator's buckets and root). */
  sameBug: SameBugRule.optional(),
};

export const JobPayload = z.discriminatedUnion("engine", [
  z.object({ engine: z.literal("input"), options: InputOptions, ...jobBase }),
  z.object({ engine: z.literal("node"), options: NodeOptions, ...jobBase }),
  z.object({ engine: z.literal("wasm"), options: WasmOptions, ...jobBase }),
]);
export type JobPayload = z.infer<typeof JobPayload>;
export type JobPayloadInput = z.input<typeof JobPayload>;
export type JobFor<E extends EngineName> = Extract<JobPayload, { engine: E }>;
