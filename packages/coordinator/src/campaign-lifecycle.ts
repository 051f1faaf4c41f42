// A campaign's life: created (target row, campaign row, "running"), stopped
// early (its deadline brought to now), wound down past its deadline (queued
// jobs no worker took are cancelled; it ends once nothing is in flight or the
// grace period passed: "completed", or "failed" when every finished job
// failed), or failed at once (a job error handler decided the target cannot
// be fuzzed). Whoever waits for a campaign polls its row: the row is the
// truth, whichever coordinator process ended it.
import { oneLine, type EngineName } from "@fuzzfarm/protocol";
import { campaignOutcome, campaignStatus, cancelQueuedJob, countOpenJobs, createCampaign, endCampaign, moveDeadline, openJobs, upsertTarget, type Db } from "@fuzzfarm/db";
import { assertEngineServed, queueOf, type FarmQueues } from "@fuzzfarm/queue";
import { validateCampaignConfig } from "./validate-campaign";
import type { Announcer } from "./events";
import type { Logger } from "./logger";

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

export interface CampaignLifecycle {
  create(c: NewCampaign): Promise<{ id: string; targetId: string }>;
  /** Resolves with the campaign's status once it is no longer running. */
  waitFor(id: string): Promise<string>;
  /** End early: the deadline becomes now, the supervisor winds the campaign down. */
  stop(id: string): Promise<void>;
  /** Past the deadline: cancel queued jobs; end the campaign when none is left or the grace period passed. Returns whether it ended. */
  windDown(c: { id: string; deadline: Date }): Promise<boolean>;
  /** End a running campaign as failed now (queued jobs cancelled; results of running ones are still applied). */
  fail(id: string, reason: string): Promise<void>;
}

/** The campaigns one coordinator supervises: all running ones, or only those it was given and created. */
export interface CampaignScope {
  includes(id: string): boolean;
  add(id: string): void;
}

export function campaignScope(only?: string[]): CampaignScope {
  const ids = only ? new Set(only) : null;
  return { includes: (id) => !ids || ids.has(id), add: (id) => void ids?.add(id) };
}

export interface LifecycleDeps {
  db: Db;
  queues: FarmQueues;
  scope: CampaignScope;
  events: Announcer;
  /** Extra time after a deadline for in-flight jobs to report, ms. */
  graceMs: number;
  /** How often waitFor reads the campaign's status, ms. Default 250. */
  pollMs?: number;
  logger: Logger;
}

export function createCampaignLifecycle(deps: LifecycleDeps): CampaignLifecycle {
  const { db, queues, scope, events, graceMs, logger } = deps;

  /** Cancel the campaign's queued fuzz jobs that no worker has taken (waiting in the queue, or lost from it). */
  async function cancelUntaken(campaignId: string): Promise<void> {
    const open = (await openJobs(db, campaignId)).filter((j) => j.kind === "fuzz");
    for (const j of open) {
      // the engine's queue, or the route's (jobs-wasm@deno) for a job that needs engines not every worker has
      const qj = await queueOf(queues, j.payload as Parameters<typeof queueOf>[1]).getJob(j.id);
      const state = qj ? await qj.getState() : "unknown";
      if (state === "waiting" || state === "delayed" || state === "prioritized" || state === "unknown") {
        if (qj) await qj.remove().catch((e) => logger.warn({ campaignId, jobId: j.id, err: e }, `job ${j.id} not removed from its queue (a worker may still take it): ${oneLine(e)}`));
        await cancelQueuedJob(db, j.id);
      }
    }
  }

  /** `why`: what the log line says after the status. */
  async function end(id: string, status: "completed" | "failed", why: string): Promise<void> {
    if (!(await endCampaign(db, id, status))) return;
    await events.campaignEnded(id, status);
    logger[status === "failed" ? "warn" : "info"]({ campaignId: id, status }, `campaign ${id} ${status}${why}`);
  }

  return {
    async create(c) {
      // the configuration as stored: options parsed by the engine's schema (planning reads it back through it)
      const config = validateCampaignConfig({ ...c.target, version: c.target.version ?? "" }, { engine: c.engine, options: c.options ?? {}, jobSeconds: c.jobSeconds ?? 5, runsPerJob: c.runsPerJob });
      // engines (deno, bun, command engines) that no live worker offers: refused now, not by every worker later
      await assertEngineServed(queues.connection, queues.prefix, c.engine, config.options);
      const target = await upsertTarget(db, { name: c.target.name, engine: c.engine, path: c.target.path, version: c.target.version });
      const camp = await createCampaign(db, { targetId: target.id, engine: c.engine, config, deadline: new Date(Date.now() + c.seconds * 1000) });
      scope.add(camp.id);
      await events.campaignStarted(camp.id);
      logger.info({ campaignId: camp.id, engine: c.engine, target: c.target.path, seconds: c.seconds }, `campaign ${camp.id} started: ${c.engine} ${c.target.path} for ${c.seconds}s`);
      return { id: camp.id, targetId: target.id };
    },

    waitFor(id) {
      return new Promise<string>((resolve, reject) => {
        const check = async () => {
          const status = await campaignStatus(db, id);
          if (status === null) {
            clearInterval(iv);
            reject(new Error(`no campaign ${id}`));
          } else if (status !== "running") {
            clearInterval(iv);
            resolve(status);
          }
        };
        const iv = setInterval(() => void check().catch((e) => logger.warn({ campaignId: id, err: e }, `campaign ${id} status not read (trying again): ${oneLine(e)}`)), deps.pollMs ?? 250);
      });
    },

    stop: (id) => moveDeadline(db, id),

    async windDown(c) {
      await cancelUntaken(c.id);
      const still = await countOpenJobs(db, c.id, "fuzz");
      if (still > 0 && Date.now() <= c.deadline.getTime() + graceMs) return false;
      const outcome = await campaignOutcome(db, c.id);
      await end(c.id, outcome.status, `${outcome.reason ? `: ${outcome.reason}` : ""}${outcome.warning ? ` (${outcome.warning})` : ""}`);
      return true;
    },

    async fail(id, reason) {
      if ((await campaignStatus(db, id)) !== "running") return;
      await cancelUntaken(id);
      await end(id, "failed", `: ${reason}`);
    },
  };
}
