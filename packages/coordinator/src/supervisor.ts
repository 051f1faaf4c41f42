// The supervisor: every tick, for each running campaign in scope, resume it
// on first sight (re-enqueue its open jobs), wind it down past its deadline,
// or keep its queue fed (two open jobs per live worker of its engine, at
// least two); then mirror worker heartbeats (Redis) into PostgreSQL. Ticks
// run one after the other, never overlapping; a failed tick is logged and the
// next one tries again.
import { oneLine, type EngineName } from "@fuzzfarm/protocol";
import { countOpenJobs, runningCampaigns, upsertWorkers, type Db } from "@fuzzfarm/db";
import { readHeartbeats, type FarmQueues } from "@fuzzfarm/queue";
import type { CampaignLifecycle, CampaignScope } from "./campaign-lifecycle";
import type { JobPlanner } from "./planning";
import type { Logger } from "./logger";

export interface SupervisorDeps {
  db: Db;
  queues: FarmQueues;
  scope: CampaignScope;
  lifecycle: CampaignLifecycle;
  planner: JobPlanner;
  /** Supervision period, ms. */
  tickMs: number;
  logger: Logger;
}

export interface Supervisor {
  /** Run `fn` between two ticks (a campaign ended by a result must not see a tick plan jobs for it meanwhile). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Stop ticking; resolves once the tick in progress (if any) has finished. */
  stop(): Promise<void>;
}

export function startSupervisor(deps: SupervisorDeps): Supervisor {
  const { db, queues, scope, lifecycle, planner, logger } = deps;
  const resumed = new Set<string>();

  async function tick(): Promise<void> {
    const camps = (await runningCampaigns(db)).filter((c) => scope.includes(c.id));
    for (const c of camps) {
      if (!resumed.has(c.id)) {
        // First sight of this campaign by this coordinator: re-enqueue its open jobs (no-ops if still queued).
        resumed.add(c.id);
        await planner.resume(c.id);
      }
      if (Date.now() >= c.deadline.getTime()) {
        await lifecycle.windDown(c);
        continue;
      }
      const open = await countOpenJobs(db, c.id, "fuzz");
      const want = Math.max(2, 2 * (await planner.liveWorkers(c.engine as EngineName)));
      if (open < want) await planner.plan(c.id, want - open);
    }
    const beats = await readHeartbeats(queues.connection, queues.prefix, 60_000);
    if (beats.length) await upsertWorkers(db, beats);
  }

  // Ticks and exclusive work run one after the other on this chain.
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(tick).catch((e) => logger.error({ err: e }, `supervisor: ${oneLine(e)}`));
  }, deps.tickMs);

  return {
    exclusive<T>(fn: () => Promise<T>): Promise<T> {
      const done = running.then(fn);
      // the chain only orders the calls: `done`'s failure reaches this call's caller
      running = done.catch(() => {});
      return done;
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
