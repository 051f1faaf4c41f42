// `fuzzfarm up`: start whatever services are missing, migrate, then run the
// coordinator, the dashboard and N local workers until interrupted.
// `--demo` also starts a campaign on a bundled example.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startCoordinator } from "@fuzzfarm/coordinator";
import { ensureServices } from "@fuzzfarm/services";
import { buildApp } from "@fuzzfarm/web";
import { dashboardExposure, redisPasswordFile, type Config } from "@fuzzfarm/config";
import { openFarm, PROJECT_ROOT, REPO_ROOT } from "../context";
import { startLocalWorkers } from "../local-workers";
import { cliLogger } from "../log";
import { progressLine, campaignSummary } from "./summary";
import { resolveTarget } from "./targets";

export interface UpFlags {
  demo?: boolean;
  demoTime?: number;
}

export const DEMO_TARGET = join(REPO_ROOT, "examples", "input", "magic-bytes.ts");

export async function upCommand(f: UpFlags, loaded: Config, err = process.stderr): Promise<number> {
  // What `up` says of itself (the dashboard's address, how workers join, the demo's progress) is its output;
  // services, coordinator and workers speak through the logger (their lines, at FUZZFARM_LOG_LEVEL).
  const log = (l: string) => err.write(`${l}\n`);
  const logger = cliLogger(err, loaded.logLevel);
  // A Redis started here requires the password it generated: everything below (and the local workers) uses its URL.
  const { redisUrl } = await ensureServices({ redisUrl: loaded.redisUrl, databaseUrl: loaded.databaseUrl, dataDir: loaded.dataDir, path: process.env.PATH ?? "", repoRoot: REPO_ROOT, installPackages: true, log: (l) => logger.info(l) });
  const config: Config = Object.freeze({ ...loaded, redisUrl });
  const farm = await openFarm(config);
  const adminToken = config.adminToken ?? randomBytes(18).toString("base64url");
  const coordinator = await startCoordinator({ db: farm.db, queues: farm.queues, redisUrl: config.redisUrl, rootDir: PROJECT_ROOT, logger: cliLogger(err, config.logLevel, "coordinator: ") });
  const app = await buildApp({ db: farm.db, queues: farm.queues, redisUrl: config.redisUrl, prefix: config.queuePrefix, adminToken, workerToken: config.workerToken, ciToken: config.ciToken, ci: { targetRoots: config.targetRoots ?? [], startCampaign: (c) => coordinator.createCampaign(c) }, dataDir: config.dataDir, ...dashboardExposure(config) });
  const address = await app.listen({ host: config.httpHost, port: config.httpPort });
  const workers = startLocalWorkers(config, config.workers, logger);
  // The token is printed only when it was just generated: one from the environment or a file must not land in logs.
  log(`dashboard: ${address}  (${config.adminToken ? "admin token: the configured one" : `admin token for writes: ${adminToken}`})`);
  log(`workers: ${config.workers} local; others join with: ${joinHint(config.redisUrl, config.dataDir)}`);
  if (f.demo) {
    const t = resolveTarget(DEMO_TARGET, "input", undefined);
    const c = await coordinator.createCampaign({ target: t, engine: "input", seconds: f.demoTime ?? 120, jobSeconds: 5 });
    log(`demo campaign ${c.id} on ${t.path}: watch it at ${address}/campaigns/${c.id}`);
    const iv = setInterval(async () => {
      // a progress line skipped (database busy or restarting) comes back on the next tick
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

/** How other workers join, for a log line: a password is never printed; the one of FuzzFarm's own Redis is named by its file. */
export function joinHint(url: string, dataDir: string): string {
  const u = new URL(url);
  if (!u.password) return `REDIS_URL=${url} npx fuzzfarm worker`;
  const shown = `${u.protocol}//${u.username}:PASSWORD@${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  const file = redisPasswordFile(dataDir);
  const stored = existsSync(file) && readFileSync(file, "utf8").trim() === decodeURIComponent(u.password);
  return `REDIS_URL=${shown} npx fuzzfarm worker${stored ? ` (PASSWORD: the content of ${file})` : ""}`;
}
