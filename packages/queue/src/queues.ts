// The farm's queues:
//   jobs-<engine>         fuzz jobs (coordinator -> workers); a worker listens only to
//                         the engines it has, which is how it advertises them
//   jobs-<engine>@<route> fuzz jobs that need engine configurations not every worker has
//                         (`jobs-wasm@deno`): only workers offering them consume it (routes.ts)
//   maintenance-<engine>  replay and minimize jobs, kept apart so they never starve fuzzing
//                         (`maintenance-<engine>@<route>` likewise)
//   results               job results (workers -> coordinator), persisted exactly once by job id
import { Queue, type ConnectionOptions } from "bullmq";
import type { Redis } from "ioredis";
import { ENGINE_NAMES, FuzzFarmError, type EngineName, type JobPayload, type JobResult } from "@fuzzfarm/protocol";
import { connect, type RedisConfig } from "./connection";
import { signJobData } from "./signing";
import { addRoute, jobRoute } from "./routes";
import { setTimeout as sleep } from "node:timers/promises";

/** `jobs-<engine>` / `maintenance-<engine>`, with `@<route>` for jobs routed by capability (routes.ts). */
export const jobQueueName = (engine: EngineName, kind: "fuzz" | "maintenance", route?: string | null) =>
  `${kind === "fuzz" ? "jobs" : "maintenance"}-${engine}${route ? `@${route}` : ""}`;
export const RESULTS_QUEUE = "results";
export const DEFAULT_PREFIX = "fuzzfarm";

export interface FarmQueues {
  connection: Redis;
  prefix: string;
  /** Key that signs enqueued jobs (see signing.ts); without it this handle cannot enqueue jobs. */
  jobKey?: string;
  /** Fuzz-job queue per engine. */
  jobs: Record<EngineName, Queue<JobPayload>>;
  /** Replay / minimize queue per engine. */
  maintenance: Record<EngineName, Queue<JobPayload>>;
  results: Queue<JobResult>;
  /** The queue of a routed job (`jobs-wasm@deno`), opened on first use and closed with the others. */
  routed(engine: EngineName, kind: "fuzz" | "maintenance", route: string): Queue<JobPayload>;
  /** Every queue opened here (routed ones once used), for dashboards. */
  all(): Queue[];
  close(): Promise<void>;
}

export interface QueuesConfig extends RedisConfig {
  /** The farm's job key: jobs enqueued through this handle are signed with it. Only the coordinator side needs it. */
  jobKey?: string;
}

export function openQueues(cfg: QueuesConfig): FarmQueues {
  const connection = connect(cfg.url);
  connection.on("error", () => {});
  const prefix = cfg.prefix ?? DEFAULT_PREFIX;
  const opts = { connection: connection as ConnectionOptions, prefix };
  const perEngine = (kind: "fuzz" | "maintenance") =>
    Object.fromEntries(ENGINE_NAMES.map((e) => [e, new Queue<JobPayload>(jobQueueName(e, kind), opts)])) as Record<EngineName, Queue<JobPayload>>;
  const jobs = perEngine("fuzz");
  const maintenance = perEngine("maintenance");
  const results = new Queue<JobResult>(RESULTS_QUEUE, opts);
  const routedQueues = new Map<string, Queue<JobPayload>>();
  const routed = (engine: EngineName, kind: "fuzz" | "maintenance", route: string) => {
    const name = jobQueueName(engine, kind, route);
    let q = routedQueues.get(name);
    if (!q) routedQueues.set(name, (q = new Queue<JobPayload>(name, opts)));
    return q;
  };
  const all = () => [...Object.values(jobs), ...Object.values(maintenance), ...routedQueues.values(), results] as Queue[];
  return {
    connection,
    prefix,
    ...(cfg.jobKey ? { jobKey: cfg.jobKey } : {}),
    jobs,
    maintenance,
    results,
    routed,
    all,
    async close() {
      // A queue closed before its connection is ready lets BullMQ emit 'error' on a connection it has already
      // detached from (an uncaught "Connection is closed." that ended short CLI commands with exit 1): wait for
      // readiness first, bounded, since Redis may be down when we close.
      // (A queue that never gets ready is closed all the same: its error is the close's to report.)
      await Promise.race([Promise.all(all().map((q) => q.waitUntilReady().catch(() => {}))), sleep(READY_WAIT_MS, undefined, { ref: false })]);
      await Promise.all(all().map((q) => q.close()));
      connection.disconnect();
    },
  };
}

const READY_WAIT_MS = 3000;

/** The queue a job goes to: its engine's, or the route's when it needs engine configurations not every worker has. */
export function queueOf(q: FarmQueues, job: Pick<JobPayload, "engine" | "kind" | "options">): Queue<JobPayload> {
  const kind = job.kind === "fuzz" ? "fuzz" : "maintenance";
  const route = jobRoute(job);
  return route ? q.routed(job.engine, kind, route) : (kind === "fuzz" ? q.jobs : q.maintenance)[job.engine];
}

/**
 * Enqueue a job, signed with the farm's job key, on its queue (queueOf; a routed queue is recorded for workers to
 * find); its id is the BullMQ job id, so enqueueing the same job twice is a no-op.
 */
export async function enqueueJob(q: FarmQueues, job: JobPayload): Promise<void> {
  if (!q.jobKey) throw new FuzzFarmError("FF_ERR_CONFIG", "these queues were opened without the farm's job key, so they cannot enqueue jobs");
  const queue = queueOf(q, job);
  if (queue.name.includes("@")) await addRoute(q.connection, q.prefix, queue.name);
  await queue.add(job.kind, signJobData(job, q.jobKey) as JobPayload, {
    jobId: job.jobId,
    attempts: 3,
    backoff: { type: "exponential", delay: 1000 },
    removeOnComplete: { count: 1000 },
    removeOnFail: { count: 5000 },
  });
}

/** Publish a result; its id is the job id, so a worker re-sending it (after a retry) is a no-op while it is kept. */
export async function publishResult(q: FarmQueues, result: JobResult): Promise<void> {
  await q.results.add("result", result, {
    jobId: `r-${result.jobId}`,
    attempts: 5,
    backoff: { type: "exponential", delay: 1000 },
    removeOnComplete: { count: 1000 },
    removeOnFail: { count: 5000 },
  });
}

export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed: number;
}

/** Depth of every queue by name (jobs-input, maintenance-node, results...). */
export async function queueDepths(q: FarmQueues): Promise<Record<string, QueueDepth>> {
  const one = async (queue: Queue) => {
    const c = await queue.getJobCounts("waiting", "active", "delayed", "failed", "completed", "prioritized");
    return { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0, completed: c.completed ?? 0 };
  };
  const queues = q.all();
  const depths = await Promise.all(queues.map(one));
  return Object.fromEntries(queues.map((queue, i) => [queue.name, depths[i]!]));
}
