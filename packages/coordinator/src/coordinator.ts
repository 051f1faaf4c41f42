// The coordinator: plans jobs for running campaigns, applies results exactly
// once, mirrors worker heartbeats into PostgreSQL and announces what changed.
//
//   supervise (every tick)          results consumer (BullMQ, one at a time)
//   ----------------------          -----------------------------------------
//   deadline passed? wind down      validate the result (schema)
//   open jobs < want? plan more     classify findings (triage)
//     corpus -> planner -> payload  applyResult (one transaction, idempotent)
//     job row, then enqueue         publish a FarmEvent
//
// Everything it needs to resume lives in PostgreSQL (campaign rows, job rows
// still "queued") and Redis (the queues), so a restarted coordinator picks up
// where the last one stopped: it re-enqueues open jobs (ids dedup in BullMQ).
import { EventEmitter } from "node:events";
import { createRng, type Rng } from "@fuzzfarm/corpus";
import { oneLine, parseResult, type EngineName, type JobResult } from "@fuzzfarm/protocol";
import {
  applyResult,
  campaignOutcome,
  corpusEntries,
  createCampaign,
  endCampaign,
  insertJobs,
  markChosen,
  openJobs,
  reserveJobSeq,
  runningCampaigns,
  upsertTarget,
  bucketTargetId,
  upsertWorkers,
  type ApplySummary,
  type Db,
} from "@fuzzfarm/db";
import {
  connect,
  enqueueJob,
  publishEvent,
  readHeartbeats,
  QueueWorker,
  UnrecoverableError,
  RESULTS_QUEUE,
  type ConnectionOptions,
  type FarmQueues,
  type QueueJob,
} from "@fuzzfarm/queue";
import { PLANNERS, type CampaignPlanConfig } from "./planners/index";
import { classifyFindings } from "./classify";
import { validateCampaignConfig } from "./validate-campaign";
import { applyMaintenanceResult, enqueueReplay, DEFAULT_MAINTENANCE, type MaintenanceOptions } from "./maintenance";

export interface CoordinatorOptions {
  db: Db;
  queues: FarmQueues;
  redisUrl: string;
  /** Repository / project root: stack paths are made relative to it. */
  rootDir: string;
  /** Supervise only these campaigns (a `fuzz` command's private coordinator). Default: all running ones. */
  only?: string[];
  /** Supervision period, ms. Default 500. */
  tickMs?: number;
  /** Extra time after a campaign's deadline for in-flight jobs to report, ms. Default 30000. */
  graceMs?: number;
  /** Replay / minimize budgets for new buckets; replayRuns 0 turns them off. */
  maintenance?: Partial<MaintenanceOptions>;
  /** Seed of the planning rng (tests). Default: time-based. */
  seed?: number;
  log?: (line: string) => void;
}

export interface NewCampaign {
  target: { name: string; path: string; version?: string };
  engine: EngineName;
  options?: Record<string, unknown>;
  /** Campaign duration, seconds. */
  seconds: number;
  /** Seconds per job. Default 5. */
  jobSeconds?: number;
  runsPerJob?: number;
}

export interface ResultApplied extends ApplySummary {
  campaignId: string;
  jobId: string;
  execs: number;
  error?: JobResult["error"];
  /** Time spent classifying and persisting this result, ms. */
  applyMs: number;
}

export interface Coordinator extends EventEmitter {
  createCampaign(c: NewCampaign): Promise<{ id: string; targetId: string }>;
  /** Resolves when the campaign has ended (completed / stopped / failed). */
  waitForCampaign(id: string): Promise<string>;
  stopCampaign(id: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startCoordinator(opts: CoordinatorOptions): Promise<Coordinator> {
  const { db, queues } = opts;
  const log = opts.log ?? (() => {});
  const rng: Rng = createRng(opts.seed ?? Date.now() & 0x7fffffff);
  const graceMs = opts.graceMs ?? 30_000;
  const maintenance = { ...DEFAULT_MAINTENANCE, ...opts.maintenance };
  const emitter = new EventEmitter() as Coordinator;
  const only = opts.only ? new Set(opts.only) : null;
  /** Campaign id -> the Target row holding its program's buckets (see bucketTargetId). */
  const bucketTargets = new Map<string, string>();
  let stopped = false;

  // ---- results -------------------------------------------------------------
  // A blocking consumer needs its own connection; BullMQ does not close connections it was given.
  const consumerConnection = connect(opts.redisUrl);
  consumerConnection.on("error", () => {});
  const consumer = new QueueWorker(
    RESULTS_QUEUE,
    async (job: QueueJob<unknown>) => {
      let r: JobResult;
      try {
        r = parseResult(job.data);
      } catch (e) {
        log(`dropped malformed result ${job.id}: ${oneLine(e)}`);
        throw new UnrecoverableError(oneLine(e));
      }
      const camp = await db.prisma.campaign.findUnique({ where: { id: r.campaignId }, include: { target: true } });
      if (!camp) throw new UnrecoverableError(`result for unknown campaign ${r.campaignId}`);
      if (r.kind !== "fuzz") {
        const bucketId = r.bucketId;
        if (!bucketId) throw new UnrecoverableError(`${r.kind} result ${r.jobId} for no known bucket`);
        log(await applyMaintenanceResult(db, queues, r, bucketId, opts.rootDir, maintenance));
        await publishEvent(queues.connection, queues.prefix, { type: "bucket", bucketId, action: r.kind }).catch(() => {});
        emitter.emit("maintenance", { kind: r.kind, bucketId, jobId: r.jobId });
        return { duplicate: false };
      }
      let bucketTarget = bucketTargets.get(camp.id);
      if (!bucketTarget) bucketTargets.set(camp.id, (bucketTarget = await bucketTargetId(db, camp.target)));
      const t0 = performance.now();
      const classified = await classifyFindings(db, r, bucketTarget, opts.rootDir);
      const summary = await applyResult(db, r, { targetId: bucketTarget, targetVersion: camp.target.version, classified });
      if (!summary.duplicate) {
        await publishEvent(queues.connection, queues.prefix, {
          type: "result",
          campaignId: r.campaignId,
          jobId: r.jobId,
          execs: r.execs,
          newCoverage: summary.newCoverage,
          newNovelty: summary.newNovelty,
          newBuckets: summary.newBuckets,
        }).catch(() => {});
        for (const b of summary.newBuckets) {
          await publishEvent(queues.connection, queues.prefix, { type: "bucket", bucketId: b, action: "created" }).catch(() => {});
          if (maintenance.replayRuns > 0) await enqueueReplay(db, queues, b, maintenance).catch((e) => log(`replay of ${b}: ${oneLine(e)}`));
        }
      }
      if (r.error) log(`job ${r.jobId} failed on ${r.workerId}: ${r.error.kind}: ${r.error.message}`);
      const applied: ResultApplied = { ...summary, campaignId: r.campaignId, jobId: r.jobId, execs: r.execs, error: r.error, applyMs: performance.now() - t0 };
      emitter.emit("result", applied);
      return { duplicate: summary.duplicate };
    },
    { connection: consumerConnection as ConnectionOptions, prefix: queues.prefix, concurrency: 1 },
  );
  consumer.on("error", (e) => log(`results consumer: ${oneLine(e)}`));

  // ---- planning --------------------------------------------------------------
  async function liveWorkers(engine: EngineName): Promise<number> {
    const beats = await readHeartbeats(queues.connection, queues.prefix, 15_000);
    return beats.filter((b) => b.engines.includes(engine)).length;
  }

  async function planJobs(campaignId: string, n: number): Promise<void> {
    const camp = await db.prisma.campaign.findUniqueOrThrow({ where: { id: campaignId }, include: { target: true } });
    const config = camp.config as unknown as CampaignPlanConfig;
    const first = await reserveJobSeq(db, campaignId, n);
    const rows = await corpusEntries(db, campaignId);
    const corpus = rows.map((e) => ({
      id: e.id,
      data: e.input,
      strategy: (e.strategy ?? {}) as Record<string, unknown>,
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
    // Row first, then the queue: a crash in between leaves a "queued" row that the next tick re-enqueues.
    await insertJobs(db, plans.map((p) => ({ id: p.payload.jobId, campaignId, kind: "fuzz", payload: p.payload })));
    for (const p of plans) await enqueueJob(queues, p.payload as never);
    await markChosen(db, plans.flatMap((p) => p.chosen));
  }

  async function windDown(campaignId: string, deadline: Date): Promise<boolean> {
    const open = (await openJobs(db, campaignId)).filter((j) => j.kind === "fuzz");
    for (const j of open) {
      const payload = j.payload as { engine: EngineName };
      const qj = await queues.jobs[payload.engine].getJob(j.id);
      const state = qj ? await qj.getState() : "unknown";
      if (state === "waiting" || state === "delayed" || state === "prioritized" || state === "unknown") {
        if (qj) await qj.remove().catch(() => {});
        await db.prisma.job.updateMany({ where: { id: j.id, status: "queued" }, data: { status: "cancelled", finishedAt: new Date() } });
      }
    }
    const still = await db.prisma.job.count({ where: { campaignId, status: "queued", kind: "fuzz" } });
    return still === 0 || Date.now() > deadline.getTime() + graceMs;
  }

  const resumed = new Set<string>();
  async function tick(): Promise<void> {
    const camps = (await runningCampaigns(db)).filter((c) => !only || only.has(c.id));
    for (const c of camps) {
      if (!resumed.has(c.id)) {
        // First sight of this campaign by this coordinator: re-enqueue its open jobs (no-ops if still queued).
        resumed.add(c.id);
        for (const j of await openJobs(db, c.id)) await enqueueJob(queues, j.payload as never).catch((e) => log(`re-enqueue ${j.id}: ${oneLine(e)}`));
      }
      if (Date.now() >= c.deadline.getTime()) {
        if (await windDown(c.id, c.deadline)) {
          const end = await campaignOutcome(db, c.id);
          await endCampaign(db, c.id, end.status);
          await publishEvent(queues.connection, queues.prefix, { type: "campaign", campaignId: c.id, status: end.status }).catch(() => {});
          log(`campaign ${c.id} ${end.status}${end.reason ? `: ${end.reason}` : ""}${end.warning ? ` (${end.warning})` : ""}`);
          emitter.emit("campaignEnded", c.id, end.status);
        }
        continue;
      }
      const open = await db.prisma.job.count({ where: { campaignId: c.id, status: "queued", kind: "fuzz" } });
      const want = Math.max(2, 2 * (await liveWorkers(c.engine as EngineName)));
      if (open < want) await planJobs(c.id, want - open);
    }
    const beats = await readHeartbeats(queues.connection, queues.prefix, 60_000);
    if (beats.length) await upsertWorkers(db, beats);
  }

  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(tick).catch((e) => log(`supervisor: ${oneLine(e)}`));
  }, opts.tickMs ?? 500);

  emitter.createCampaign = async (c: NewCampaign) => {
    const config: CampaignPlanConfig = { engine: c.engine, options: c.options ?? {}, jobSeconds: c.jobSeconds ?? 5, runsPerJob: c.runsPerJob };
    validateCampaignConfig({ ...c.target, version: c.target.version ?? "" }, config);
    const target = await upsertTarget(db, { name: c.target.name, engine: c.engine, path: c.target.path, version: c.target.version });
    const camp = await createCampaign(db, { targetId: target.id, engine: c.engine, config: config as never, deadline: new Date(Date.now() + c.seconds * 1000) });
    only?.add(camp.id);
    await publishEvent(queues.connection, queues.prefix, { type: "campaign", campaignId: camp.id, status: "running" }).catch(() => {});
    log(`campaign ${camp.id} started: ${c.engine} ${c.target.path} for ${c.seconds}s`);
    return { id: camp.id, targetId: target.id };
  };

  emitter.waitForCampaign = (id: string) =>
    new Promise<string>((resolve, reject) => {
      const check = async () => {
        const c = await db.prisma.campaign.findUnique({ where: { id }, select: { status: true } });
        if (!c) return reject(new Error(`no campaign ${id}`));
        if (c.status !== "running") {
          clearInterval(iv);
          resolve(c.status);
        }
      };
      const iv = setInterval(() => void check().catch(() => {}), 250);
    });

  emitter.stopCampaign = async (id: string) => {
    await db.prisma.campaign.update({ where: { id }, data: { deadline: new Date() } });
  };

  emitter.stop = async () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    await running.catch(() => {});
    await consumer.close();
    consumerConnection.disconnect();
  };
  return emitter;
}
