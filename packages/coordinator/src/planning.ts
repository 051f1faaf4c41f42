// Job planning: turns a running campaign's corpus into fuzz jobs (through the
// engine's planner), re-enqueues the open jobs a restarted coordinator finds,
// and runs a failed job's payload again under a new id (a retry). Every job
// gets its row first, then its queue entry: a crash in between leaves a
// "queued" row that the next resume re-enqueues (BullMQ dedups by job id).
import type { Rng } from "@fuzzfarm/rng";
import { FuzzFarmError, oneLine, parseJob, readCampaignConfig, type EngineName } from "@fuzzfarm/protocol";
import { corpusEntries, getCampaign, insertJobs, jobPayload, markChosen, openJobs, reserveJobSeq, type Db } from "@fuzzfarm/db";
import { enqueueJob, readHeartbeats, type FarmQueues } from "@fuzzfarm/queue";
import { PLANNERS } from "./planners/index";
import type { Logger } from "./logger";

export interface JobPlanner {
  /** Plan and enqueue `n` fuzz jobs for a campaign. */
  plan(campaignId: string, n: number): Promise<void>;
  /** Re-enqueue a campaign's open jobs (no-ops for jobs still in the queue). */
  resume(campaignId: string): Promise<void>;
  /** Enqueue a failed job's payload again as retry number `attempt` (1, 2, ...); returns the new job id. */
  retry(jobId: string, attempt: number): Promise<string>;
  /** Workers that heartbeat with this engine now. */
  liveWorkers(engine: EngineName): Promise<number>;
}

const RETRY_SUFFIX = /-retry(\d+)$/;

/** Retries already made of a job's payload, from its id: 0 for a planned job. */
export function retryAttempt(jobId: string): number {
  const m = RETRY_SUFFIX.exec(jobId);
  return m ? Number(m[1]) : 0;
}

/** The id of retry number `attempt` of a job (retries of retries keep one suffix). */
export const retryJobId = (jobId: string, attempt: number) => `${jobId.replace(RETRY_SUFFIX, "")}-retry${attempt}`;

export function createJobPlanner(deps: { db: Db; queues: FarmQueues; rng: Rng; logger: Logger }): JobPlanner {
  const { db, queues, rng, logger } = deps;
  return {
    async plan(campaignId, n) {
      const camp = await getCampaign(db, campaignId);
      const config = readCampaignConfig(camp.config, campaignId);
      const first = await reserveJobSeq(db, campaignId, n);
      const rows = await corpusEntries(db, campaignId);
      const corpus = rows.map((e) => ({
        id: e.id,
        data: e.input,
        strategy: e.strategy,
        execTimeUs: e.execTimeUs,
        newFeatures: e.newCoverage + (Array.isArray(e.newFeatures) ? e.newFeatures.length : 0),
        timesChosen: e.timesChosen,
        timesProductive: e.timesProductive,
        addedAt: e.createdAt.getTime(),
      }));
      const plans = Array.from({ length: n }, (_, i) =>
        PLANNERS[config.engine]({
          jobId: `${campaignId}-${first + i}`,
          campaignId,
          target: { name: camp.target.name, path: camp.target.path, version: camp.target.version },
          config,
          corpus,
          rng,
          now: Date.now(),
        }),
      );
      await insertJobs(db, plans.map((p) => ({ id: p.payload.jobId, campaignId, kind: "fuzz", payload: p.payload })));
      for (const p of plans) await enqueueJob(queues, p.payload);
      await markChosen(db, plans.flatMap((p) => p.chosen));
    },

    async resume(campaignId) {
      for (const j of await openJobs(db, campaignId)) await Promise.resolve().then(() => enqueueJob(queues, parseJob(j.payload))).catch((e) => logger.error({ campaignId, jobId: j.id, err: e }, `re-enqueue ${j.id}: ${oneLine(e)}`));
    },

    async retry(jobId, attempt) {
      const payload = await jobPayload(db, jobId);
      if (payload === null) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no job ${jobId} to retry`);
      const job = parseJob({ ...(payload as object), jobId: retryJobId(jobId, attempt) });
      await insertJobs(db, [{ id: job.jobId, campaignId: job.campaignId, kind: job.kind, payload: job }]);
      await enqueueJob(queues, job);
      return job.jobId;
    },

    async liveWorkers(engine) {
      const beats = await readHeartbeats(queues.connection, queues.prefix, 15_000);
      return beats.filter((b) => b.engines.includes(engine)).length;
    },
  };
}
