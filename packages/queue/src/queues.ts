// The farm's three queues:
//   jobs         fuzz jobs (coordinator -> workers)
//   maintenance  replay and minimize jobs, kept apart so they never starve fuzzing
//   results      job results (workers -> coordinator), persisted exactly once by job id
import { Queue, type ConnectionOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { JobPayload, JobResult } from "@fuzzfarm/protocol";
import { connect, type RedisConfig } from "./connection";

export const QUEUE_NAMES = { jobs: "jobs", maintenance: "maintenance", results: "results" } as const;
export const DEFAULT_PREFIX = "fuzzfarm";

export interface FarmQueues {
  connection: Redis;
  prefix: string;
  jobs: Queue<JobPayload>;
  maintenance: Queue<JobPayload>;
  results: Queue<JobResult>;
  close(): Promise<void>;
}

export function openQueues(cfg: RedisConfig): FarmQueues {
  const connection = connect(cfg.url);
  connection.on("error", () => {});
  const prefix = cfg.prefix ?? DEFAULT_PREFIX;
  const opts = { connection: connection as ConnectionOptions, prefix };
  const jobs = new Queue<JobPayload>(QUEUE_NAMES.jobs, opts);
  const maintenance = new Queue<JobPayload>(QUEUE_NAMES.maintenance, opts);
  const results = new Queue<JobResult>(QUEUE_NAMES.results, opts);
  return {
    connection,
    prefix,
    jobs,
    maintenance,
    results,
    async close() {
      await Promise.all([jobs.close(), maintenance.close(), results.close()]);
      connection.disconnect();
    },
  };
}

/** Enqueue a job; its id is the BullMQ job id, so enqueueing the same job twice is a no-op. */
export async function enqueueJob(q: FarmQueues, job: JobPayload): Promise<void> {
  const queue = job.kind === "fuzz" ? q.jobs : q.maintenance;
  await queue.add(job.kind, job, {
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

export async function queueDepths(q: FarmQueues): Promise<Record<keyof typeof QUEUE_NAMES, QueueDepth>> {
  const one = async (queue: Queue) => {
    const c = await queue.getJobCounts("waiting", "active", "delayed", "failed", "completed", "prioritized");
    return { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0, completed: c.completed ?? 0 };
  };
  const [jobs, maintenance, results] = await Promise.all([one(q.jobs), one(q.maintenance), one(q.results)]);
  return { jobs, maintenance, results };
}
