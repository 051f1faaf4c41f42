// The farm's queues:
//   jobs-<engine>         fuzz jobs (coordinator -> workers); a worker listens only to
//                         the engines it has, which is how it advertises them
//   maintenance-<engine>  replay and minimize jobs, kept apart so they never starve fuzzing
//   results               job results (workers -> coordinator), persisted exactly once by job id
import { Queue, type ConnectionOptions } from "bullmq";
import type { Redis } from "ioredis";
import { ENGINE_NAMES, FuzzFarmError, type EngineName, type JobPayload, type JobResult } from "@fuzzfarm/protocol";
import { connect, type RedisConfig } from "./connection";
import { signJobData } from "./signing";
import { setTimeout as sleep } from "node:timers/promises";

export const jobQueueName = (engine: EngineName, kind: "fuzz" | "maintenance") => `${kind === "fuzz" ? "jobs" : "maintenance"}-${engine}`;
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
  /** Every queue, for dashboards. */
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
  const all = () => [...Object.values(jobs), ...Object.values(maintenance), results] as Queue[];
  return {
    connection,
    prefix,
    ...(cfg.jobKey ? { jobKey: cfg.jobKey } : {}),
    jobs,
    maintenance,
    results,
    all,
    async close() {
      // A queue closed before its connection is ready lets BullMQ emit 'error' on a connection it has already
      // detached from (an uncaught "Connection is closed." that ended short CLI commands with exit 1): wait for
      // readiness first, bounded, since Redis may be down when we close.
      await Promise.race([Promise.all(all().map((q) => q.waitUntilReady().catch(() => {}))), sleep(READY_WAIT_MS, undefined, { ref: false })]);
      await Promise.all(all().map((q) => q.close()));
      connection.disconnect();
    },
  };
}

const READY_WAIT_MS = 3000;

/** Enqueue a job, signed with the farm's job key; its id is the BullMQ job id, so enqueueing the same job twice is a no-op. */
export async function enqueueJob(q: FarmQueues, job: JobPayload): Promise<void> {
  if (!q.jobKey) throw new FuzzFarmError("FF_ERR_CONFIG", "these queues were opened without the farm's job key, so they cannot enqueue jobs");
  const queue = (job.kind === "fuzz" ? q.jobs : q.maintenance)[job.engine];
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
