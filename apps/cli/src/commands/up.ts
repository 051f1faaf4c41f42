// `fuzzfarm up`: start whatever services are missing, migrate, then run the
// coordinator, the dashboard and N local workers until interrupted.
// `--demo` also starts a campaign on a bundled example.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { startCoordinator } from "@fuzzfarm/coordinator";
import { ensureServices } from "@fuzzfarm/services";
import { buildApp } from "@fuzzfarm/web";
import { dashboardExposure, type Config } from "@fuzzfarm/config";
import { openFarm, PROJECT_ROOT, REPO_ROOT } from "../context";
import { startLocalWorkers } from "../local-workers";
import { progressLine, campaignSummary } from "./summary";
import { resolveTarget } from "./targets";

export interface UpFlags {
  demo?: boolean;
  demoTime?: number;
}

export const DEMO_TARGET = join(REPO_ROOT, "examples", "input", "magic-bytes.ts");

export async function upCommand(f: UpFlags, config: Config, err = process.stderr): Promise<number> {
  const log = (l: string) => err.write(`${l}\n`);
  await ensureServices({ redisUrl: config.redisUrl, databaseUrl: config.databaseUrl, dataDir: config.dataDir, path: process.env.PATH ?? "", repoRoot: REPO_ROOT, installPackages: true, log });
  const farm = await openFarm(config);
  const adminToken = config.adminToken ?? randomBytes(18).toString("base64url");
  const coordinator = await startCoordinator({ db: farm.db, queues: farm.queues, redisUrl: config.redisUrl, rootDir: PROJECT_ROOT, log: (l) => log(`coordinator: ${l}`) });
  const app = await buildApp({ db: farm.db, queues: farm.queues, redisUrl: config.redisUrl, prefix: config.queuePrefix, adminToken, workerToken: config.workerToken, dataDir: config.dataDir, ...dashboardExposure(config) });
  const address = await app.listen({ host: config.httpHost, port: config.httpPort });
  const workers = startLocalWorkers(config, config.workers, (l) => log(l));
  // The token is printed only when it was just generated: one from the environment or a file must not land in logs.
  log(`dashboard: ${address}  (${config.adminToken ? "admin token: the configured one" : `admin token for writes: ${adminToken}`})`);
  log(`workers: ${config.workers} local; others join with: REDIS_URL=${config.redisUrl} npx fuzzfarm worker`);
  if (f.demo) {
    const t = resolveTarget(DEMO_TARGET, "input", undefined);
    const c = await coordinator.createCampaign({ target: t, engine: "input", seconds: f.demoTime ?? 120, jobSeconds: 5 });
    log(`demo campaign ${c.id} on ${t.path}: watch it at ${address}/campaigns/${c.id}`);
    const iv = setInterval(async () => {
      const s = await campaignSummary(farm.db, c.id).catch(() => null);
      if (!s) return;
      log(progressLine(s));
      if (s.status !== "running") {
        clearInterval(iv);
        log(`demo campaign ${s.status}; ${s.buckets.length} bucket(s). The farm stays up: Ctrl-C to stop.`);
      }
    }, 5000);
  }
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  log("shutting down...");
  await workers.stop();
  await coordinator.stop();
  await app.close();
  await farm.close();
  return 0;
}
