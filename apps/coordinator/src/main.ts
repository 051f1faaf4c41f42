// fuzzfarm coordinator process (for deployments that run it apart from the
// workers): coordinator + dashboard, services must already be up; migrations
// are applied at start (idempotent). Logs one JSON line per event on stderr
// (pretty on a terminal) at FUZZFARM_LOG_LEVEL (default info): coordinator,
// dashboard requests (completed requests at debug, errors at error).
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { dashboardExposure, loadConfig, resolveJobKey } from "@fuzzfarm/config";
import { oneLine } from "@fuzzfarm/protocol";
import { createDb, pingDb } from "@fuzzfarm/db";
import { openQueues, pingRedis } from "@fuzzfarm/queue";
import { ensureServices } from "@fuzzfarm/services";
import { startCoordinator } from "@fuzzfarm/coordinator";
import { buildApp } from "@fuzzfarm/web";
import { githubAppFromEnv } from "./github-app";
import { processLogger } from "@fuzzfarm/logging";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

async function main() {
  const config = loadConfig();
  const logger = await processLogger({ name: "coordinator", level: config.logLevel });
  const log = (l: string) => logger.info(l);
  await pingRedis(config.redisUrl);
  await ensureServices({ redisUrl: config.redisUrl, databaseUrl: config.databaseUrl, dataDir: config.dataDir, path: process.env.PATH ?? "", repoRoot: REPO_ROOT, start: false, log });
  const db = createDb({ url: config.databaseUrl });
  await pingDb(db);
  const queues = openQueues({ url: config.redisUrl, prefix: config.queuePrefix, jobKey: resolveJobKey(config) });
  const coordinator = await startCoordinator({ db, queues, redisUrl: config.redisUrl, rootDir: REPO_ROOT, logger });
  const adminToken = config.adminToken ?? randomBytes(18).toString("base64url");
  const app = await buildApp({ db, queues, redisUrl: config.redisUrl, prefix: config.queuePrefix, adminToken, workerToken: config.workerToken, ciToken: config.ciToken, ci: { targetRoots: config.targetRoots ?? [], startCampaign: (c) => coordinator.createCampaign(c) }, dataDir: config.dataDir, ...dashboardExposure(config), logger: logger.child({ component: "web" }), github: githubAppFromEnv(process.env, config.dataDir, log) });
  const url = await app.listen({ host: config.httpHost, port: config.httpPort });
  logger.info({ url }, `dashboard on ${url} (coordinator running)`);
  if (!config.adminToken) log(`admin token (set FUZZFARM_ADMIN_TOKEN to fix it): ${adminToken}`);
  const bye = async () => {
    logger.info("stopping");
    await coordinator.stop();
    await app.close();
    await queues.close();
    await db.close();
    process.exit(0);
  };
  process.once("SIGTERM", bye);
  process.once("SIGINT", bye);
}

main().catch((e) => {
  console.error(`fuzzfarm coordinator: ${oneLine(e)}`);
  process.exit(2);
});
