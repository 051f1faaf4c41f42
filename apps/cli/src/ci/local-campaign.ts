// `fuzzfarm ci` without --farm: the campaign runs on this machine, as
// `fuzz` does: an in-process coordinator (only this campaign) and local
// workers on the services of the config (created and migrated when empty,
// as Actions service containers are). The coordinator and workers stop
// before the caller's replays, so those get the cores.
import { startCoordinator } from "@fuzzfarm/coordinator";
import { lineLogger } from "@fuzzfarm/logging";
import { ensureServices } from "@fuzzfarm/services";
import type { Config } from "@fuzzfarm/config";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { campaignOutcome, ciCandidates, ciCorpusInputs, importCiCorpus } from "@fuzzfarm/db";
import { openFarm, REPO_ROOT } from "../context";
import { startLocalWorkers, waitForLocalWorker } from "../local-workers";
import { campaignSummary, progressLine } from "../commands/summary";
import type { CiCampaignRunner } from "./campaign";
import type { ResolvedSandbox } from "@fuzzfarm/worker";

/** How local workers run the pull request's code. */
export interface LocalTargetPolicy {
  /** The sandbox settled for this run: workers are started requiring the same level. */
  sandbox: ResolvedSandbox;
  /** The allow-listed environment (target-env.ts) the workers start from; they add only their own settings. */
  env: Record<string, string>;
}

/** Open this machine's services (before any check run is created: a service that is down fails the command first). */
export async function localCampaignRunner(config: Config, workerCount: number, policy: LocalTargetPolicy, log: (line: string) => void): Promise<CiCampaignRunner> {
  // services, coordinator and workers log at FUZZFARM_LOG_LEVEL, each line as before; progress stays output
  const logger = lineLogger(log, config.logLevel);
  await ensureServices({ redisUrl: config.redisUrl, databaseUrl: config.databaseUrl, dataDir: config.dataDir, path: process.env.PATH ?? "", repoRoot: REPO_ROOT, start: false, log: (l) => logger.info(l) });
  const farm = await openFarm(config);
  let stopFarmSide: () => Promise<unknown> = async () => {};
  return {
    reproduceCommand: (id) => `fuzzfarm repro ${id}`,
    async run(spec, hooks) {
      const coordinator = await startCoordinator({ db: farm.db, queues: farm.queues, redisUrl: config.redisUrl, rootDir: spec.root, only: [], logger: lineLogger((l) => log(`coordinator: ${l}`), config.logLevel) });
      const workerEnv = { FUZZFARM_SANDBOX: policy.sandbox.name, FUZZFARM_DATA_DIR: config.dataDir, ...(config.skipSelfTest ? { FUZZFARM_SKIP_SELFTEST: "1" } : {}) };
      const workers = startLocalWorkers(config, workerCount, lineLogger((l) => log(`worker: ${l}`), config.logLevel), workerEnv, policy.env);
      let stopped: Promise<unknown> | null = null;
      stopFarmSide = () => (stopped ??= Promise.all([coordinator.stop(), workers.stop()]));
      // The time box is fuzzing time: start it once a local worker is up (a worker boots in seconds on a busy machine).
      await waitForLocalWorker(workers, farm.queues.connection, config.queuePrefix);
      const camp = await coordinator.createCampaign({
        target: { name: spec.target.name, path: spec.target.path, version: spec.target.version },
        engine: spec.target.engine,
        options: spec.options,
        seconds: spec.seconds,
        jobSeconds: spec.jobSeconds,
      });
      if (spec.seeds?.length) log(`corpus: ${await importCiCorpus(farm.db, camp.id, spec.seeds)} input(s) from the state directory`);
      hooks.started(camp.id);
      let lastNew: { count: number; at: number } = { count: 0, at: 0 };
      let tick = 0;
      const progress = setInterval(async () => {
        // a progress line skipped (database busy or restarting) comes back on the next tick
        const s = await campaignSummary(farm.db, camp.id).catch(() => null);
        if (!s) return;
        if (tick++ % 2 === 1) hooks.progress(progressLine(s));
        const stop = spec.stopAfterNew;
        if (!stop) return;
        const fresh = s.buckets.filter((b) => !stop.known.has(b.signature)).length;
        if (fresh > lastNew.count) lastNew = { count: fresh, at: Date.now() };
        else if (fresh > 0 && Date.now() - lastNew.at >= stop.settleSeconds * 1000) {
          log(`${fresh} new bucket(s), none more for ${stop.settleSeconds}s: ending the campaign to confirm them`);
          lastNew = { count: Infinity, at: Infinity };
          await coordinator.stopCampaign(camp.id).catch((e: Error) => log(`campaign not ended early: ${e.message}`));
        }
      }, 1000);
      try {
        if ((await coordinator.waitForCampaign(camp.id)) === "failed")
          throw new FuzzFarmError("FF_ERR_CAMPAIGN_FAILED", `campaign ${camp.id} failed: ${(await campaignOutcome(farm.db, camp.id)).reason}`);
      } finally {
        clearInterval(progress);
      }
      const s = await campaignSummary(farm.db, camp.id);
      log(progressLine(s));
      // Replays run in this process next: free the cores first (queued maintenance jobs stay for the farm's workers).
      await stopFarmSide();
      return {
        campaignId: camp.id,
        seconds: s.seconds,
        executions: s.executions,
        buckets: s.buckets.length,
        candidates: await ciCandidates(farm.db, spec.target.path),
        corpus: await ciCorpusInputs(farm.db, camp.id),
      };
    },
    async close() {
      await stopFarmSide();
      await farm.close();
    },
  };
}
