// The results consumer: takes results off the results queue one at a time and
// applies each exactly once. A fuzz result is validated (schema), its findings
// classified (triage), then applied in one transaction (applyResult, idempotent
// by job id); new buckets get a replay job; a job error goes to the job error
// handlers (job-errors.ts), whose decision is carried out here: fail the
// campaign, retry the job, or record. A replay / minimize result is applied to
// its bucket (maintenance.ts). A result is data from anyone holding the
// worker's Redis user: its raw size is checked before it is parsed, its schema
// is strict (protocol's reported.ts) and its job row, not the result, says
// which campaign, kind and bucket it applies to. A refused result is logged
// with its reason and its job marked failed; a malformed result, or one for no
// campaign, is dropped for good (UnrecoverableError): retrying cannot fix it.
import { checkResultBytes, oneLine, parseResult, type JobResult } from "@fuzzfarm/protocol";
import { applyResult, bucketTargetId, findCampaign, finishedFuzzJobs, jobOfResult, markJobFailed, type Db } from "@fuzzfarm/db";
import { connect, QueueWorker, UnrecoverableError, RESULTS_QUEUE, type ConnectionOptions, type FarmQueues, type QueueJob } from "@fuzzfarm/queue";
import { classifyFindings } from "./classify";
import { applyMaintenanceResult, enqueueReplay, type MaintenanceOptions } from "./maintenance";
import { retryAttempt, type JobPlanner } from "./planning";
import type { JobErrorHandlers } from "./job-errors";
import type { CampaignLifecycle } from "./campaign-lifecycle";
import type { Announcer, ResultApplied } from "./events";
import type { Logger } from "./logger";

export interface ResultsConsumerDeps {
  db: Db;
  queues: FarmQueues;
  /** The consumer blocks on its own connection to this Redis. */
  redisUrl: string;
  /** Stack paths are made relative to it. */
  rootDir: string;
  maintenance: MaintenanceOptions;
  jobErrors: JobErrorHandlers;
  lifecycle: CampaignLifecycle;
  planner: JobPlanner;
  /** Runs campaign-ending work between supervisor ticks (Supervisor.exclusive). */
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  events: Announcer;
  logger: Logger;
}

export interface ResultsConsumer {
  /** Stop taking results (the one being applied finishes first) and close the connection. */
  close(): Promise<void>;
}

type Campaign = NonNullable<Awaited<ReturnType<typeof findCampaign>>>;

export function startResultsConsumer(deps: ResultsConsumerDeps): ResultsConsumer {
  const { db, queues, rootDir, maintenance, jobErrors, lifecycle, planner, exclusive, events, logger } = deps;
  /** Campaign id -> the Target row holding its program's buckets (see bucketTargetId). */
  const bucketTargets = new Map<string, string>();

  async function applyMaintenance(r: JobResult, bucketId: string): Promise<void> {
    if (r.kind === "fuzz") return;
    logger.info({ campaignId: r.campaignId, jobId: r.jobId, workerId: r.workerId, bucketId, kind: r.kind }, await applyMaintenanceResult(db, queues, r, bucketId, rootDir, maintenance));
    await events.maintenanceApplied({ kind: r.kind, bucketId, jobId: r.jobId });
  }

  /** Carry out what the job error handlers decide for a fuzz job's error; failures are logged, not thrown (the result is applied). */
  async function handleJobError(r: JobResult, camp: Campaign): Promise<void> {
    const error = r.error!;
    const attempt = retryAttempt(r.jobId);
    const decision = await jobErrors.decide({
      error,
      jobId: r.jobId,
      campaignId: r.campaignId,
      workerId: r.workerId,
      attempt,
      finished: () => finishedFuzzJobs(db, r.campaignId),
    });
    let outcome: string;
    if (decision.action === "fail-campaign") {
      await exclusive(() => lifecycle.fail(r.campaignId, decision.reason));
      outcome = "the campaign fails";
    } else if (decision.action === "retry" && camp.status === "running" && camp.deadline.getTime() > Date.now()) {
      outcome = `retried as ${await planner.retry(r.jobId, attempt + 1)}`;
    } else outcome = "recorded";
    logger.warn({ campaignId: r.campaignId, jobId: r.jobId, workerId: r.workerId, error, decision: decision.action }, `job ${r.jobId} failed on ${r.workerId}: ${error.kind}: ${error.message} (${outcome})`);
  }

  async function applyFuzz(r: JobResult, camp: Campaign): Promise<boolean> {
    let bucketTarget = bucketTargets.get(camp.id);
    if (!bucketTarget) bucketTargets.set(camp.id, (bucketTarget = await bucketTargetId(db, camp.target)));
    const t0 = performance.now();
    const classified = await classifyFindings(db, r, bucketTarget, rootDir);
    const summary = await applyResult(db, r, { targetId: bucketTarget, targetVersion: camp.target.version, classified });
    const applied: ResultApplied = { ...summary, campaignId: r.campaignId, jobId: r.jobId, execs: r.execs, error: r.error, applyMs: performance.now() - t0 };
    if (summary.duplicate) {
      events.duplicateResult(applied);
      return true;
    }
    if (maintenance.replayRuns > 0)
      for (const b of summary.newBuckets) await enqueueReplay(db, queues, b, maintenance).catch((e) => logger.error({ campaignId: r.campaignId, bucketId: b, err: e }, `replay of ${b}: ${oneLine(e)}`));
    if (r.error) await handleJobError(r, camp).catch((e) => logger.error({ campaignId: r.campaignId, jobId: r.jobId, workerId: r.workerId, err: e }, `job ${r.jobId}: its ${r.error!.kind} error was not handled: ${oneLine(e)}`));
    await events.resultApplied(applied, summary.newBuckets);
    return false;
  }

  // A blocking consumer needs its own connection; BullMQ does not close connections it was given.
  const connection = connect(deps.redisUrl);
  // Its failures reach the consumer's own "error" event (logged below); this listener only keeps them from being uncaught.
  connection.on("error", () => {});
  const consumer = new QueueWorker(
    RESULTS_QUEUE,
    async (job: QueueJob<unknown>) => {
      // Results are published as `r-<job id>` (queue's publishResult): the job that a refused result fails.
      const jobId = job.id?.startsWith("r-") ? job.id.slice(2) : undefined;
      // A result that breaks a rule is refused for good; a Redis or database error on the way is thrown as it
      // is, so BullMQ retries the result (it waits in Redis while PostgreSQL is down).
      const refuse = async (e: unknown): Promise<never> => {
        const why = oneLine(e);
        logger.error({ resultId: job.id, jobId, err: e }, `refused result ${job.id}: ${why}`);
        if (jobId) await markJobFailed(db, jobId, `result refused: ${why}`).catch((f) => logger.error({ jobId, err: f }, `job ${jobId} not marked failed: ${oneLine(f)}`));
        throw new UnrecoverableError(why);
      };
      const bytes = await connection.hstrlen(`${queues.prefix}:${RESULTS_QUEUE}:${job.id}`, "data");
      let r: JobResult;
      try {
        checkResultBytes(bytes, jobId ?? String(job.id));
        r = parseResult(job.data);
        if (r.jobId !== jobId) throw new Error(`result ${job.id} names job ${r.jobId}`);
      } catch (e) {
        return refuse(e);
      }
      const row = await jobOfResult(db, r.jobId);
      if (!row) return refuse(new Error(`no job ${r.jobId}`));
      if (row.campaignId !== r.campaignId || row.kind !== r.kind)
        return refuse(new Error(`job ${r.jobId} is a ${row.kind} job of campaign ${row.campaignId}, the result says ${r.kind} of ${r.campaignId}`));
      if (r.kind !== "fuzz" && !row.bucketId) return refuse(new Error(`${r.kind} job ${r.jobId} names no bucket`));
      const camp = await findCampaign(db, r.campaignId);
      if (!camp) throw new UnrecoverableError(`result for unknown campaign ${r.campaignId}`);
      if (r.kind !== "fuzz") {
        await applyMaintenance(r, row.bucketId!);
        return { duplicate: false };
      }
      return { duplicate: await applyFuzz(r, camp) };
    },
    { connection: connection as ConnectionOptions, prefix: queues.prefix, concurrency: 1 },
  );
  consumer.on("error", (e) => logger.error({ err: e }, `results consumer: ${oneLine(e)}`));

  return {
    async close() {
      await consumer.close();
      connection.disconnect();
    },
  };
}
