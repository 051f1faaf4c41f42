// The coordinator: plans jobs for running campaigns, applies results exactly
// once, mirrors worker heartbeats into PostgreSQL and announces what changed.
// It is put together from parts, one concern each:
//
//   supervisor.ts          every tick: resume, wind down past the deadline, keep queues fed, mirror workers
//   planning.ts            corpus -> planner -> payload; job row, then enqueue; retries
//   results-consumer.ts    validate, classify, applyResult (idempotent), replay new buckets
//   job-errors.ts          a job error's kind -> fail the campaign / retry / record
//   campaign-lifecycle.ts  create, stop, wind down, fail, wait for the end
//   maintenance.ts         replay and minimize jobs of buckets, and their results
//   events.ts              typed local events and farm events (Redis pub/sub)
//
// Everything it needs to resume lives in PostgreSQL (campaign rows, job rows
// still "queued") and Redis (the queues), so a restarted coordinator picks up
// where the last one stopped: it re-enqueues open jobs (ids dedup in BullMQ).
import { createRng } from "@fuzzfarm/rng";
import type { Db } from "@fuzzfarm/db";
import type { FarmQueues } from "@fuzzfarm/queue";
import { DEFAULT_MAINTENANCE, type MaintenanceOptions } from "./maintenance";
import { createAnnouncer, type CoordinatorEvents, type CoordinatorListener } from "./events";
import { campaignScope, createCampaignLifecycle, type NewCampaign } from "./campaign-lifecycle";
import { createJobPlanner } from "./planning";
import { startSupervisor } from "./supervisor";
import { startResultsConsumer } from "./results-consumer";
import { defaultJobErrorHandlers, type JobErrorHandlers, type JobErrorPolicy } from "./job-errors";
import { lineLogger, silentLogger, type Logger } from "./logger";

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
  /** Retries of infrastructure errors, rejected jobs that fail a campaign. Default: DEFAULT_JOB_ERROR_POLICY. */
  jobErrorPolicy?: Partial<JobErrorPolicy>;
  /** The job error handler table. Default: defaultJobErrorHandlers(jobErrorPolicy). */
  jobErrors?: JobErrorHandlers;
  /** Seed of the planning rng (tests). Default: time-based. */
  seed?: number;
  /** Structured logger (pino): one event per call, with campaignId / jobId / workerId fields. Default: from `log`. */
  logger?: Logger;
  /** Plain lines instead: each event's message. Used when no `logger` is given; default: nothing is logged. */
  log?: (line: string) => void;
}

export interface Coordinator {
  createCampaign(c: NewCampaign): Promise<{ id: string; targetId: string }>;
  /** Resolves when the campaign has ended (completed / stopped / failed). */
  waitForCampaign(id: string): Promise<string>;
  /** End a campaign early: it winds down at the next tick. */
  stopCampaign(id: string): Promise<void>;
  on<K extends keyof CoordinatorEvents>(event: K, listener: CoordinatorListener<K>): Coordinator;
  off<K extends keyof CoordinatorEvents>(event: K, listener: CoordinatorListener<K>): Coordinator;
  /** Stop supervising and consuming results (what is in progress finishes first). */
  stop(): Promise<void>;
}

export async function startCoordinator(opts: CoordinatorOptions): Promise<Coordinator> {
  const { db, queues } = opts;
  const logger = opts.logger ?? (opts.log ? lineLogger(opts.log) : silentLogger());
  const maintenance = { ...DEFAULT_MAINTENANCE, ...opts.maintenance };
  const scope = campaignScope(opts.only);
  const events = createAnnouncer(queues, logger);
  const lifecycle = createCampaignLifecycle({ db, queues, scope, events, graceMs: opts.graceMs ?? 30_000, logger });
  const planner = createJobPlanner({ db, queues, rng: createRng(opts.seed ?? Date.now() & 0x7fffffff), logger });
  const jobErrors = opts.jobErrors ?? defaultJobErrorHandlers(opts.jobErrorPolicy);
  const supervisor = startSupervisor({ db, queues, scope, lifecycle, planner, tickMs: opts.tickMs ?? 500, logger });
  const consumer = startResultsConsumer({
    db, queues, redisUrl: opts.redisUrl, rootDir: opts.rootDir, maintenance, jobErrors, lifecycle, planner, exclusive: supervisor.exclusive, events, logger,
  });

  let stopped = false;
  const coordinator: Coordinator = {
    createCampaign: (c) => lifecycle.create(c),
    waitForCampaign: (id) => lifecycle.waitFor(id),
    stopCampaign: (id) => lifecycle.stop(id),
    on(event, listener) {
      events.on(event, listener);
      return coordinator;
    },
    off(event, listener) {
      events.off(event, listener);
      return coordinator;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await supervisor.stop();
      await consumer.close();
    },
  };
  return coordinator;
}
