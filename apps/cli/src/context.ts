// What every farm command needs: the parsed config and connections, opened
// with one clear error when a service does not answer (exit 2). The database
// and queue packages (Prisma, BullMQ) load only when a farm is opened.
import { fileURLToPath } from "node:url";
import { loadConfig, resolveJobKey, type Config, type ConfigInput } from "@fuzzfarm/config";
import type { Db } from "@fuzzfarm/db";
import type { FarmQueues } from "@fuzzfarm/queue";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { BUNDLED } from "./runtime";

/** FuzzFarm's own root: the repository in a checkout, dist/r/ of the installed package (holds prisma/, examples/). */
export const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** Root that crash frames and target paths are shown relative to: the checkout, or the user's project (cwd) when installed. */
export const PROJECT_ROOT = BUNDLED ? process.cwd() : REPO_ROOT;

export interface GlobalFlags {
  config?: string;
  redisUrl?: string;
  databaseUrl?: string;
  prefix?: string;
}

export function configFrom(g: GlobalFlags, extra: Partial<Record<keyof ConfigInput, unknown>> = {}): Config {
  return loadConfig({ file: g.config, flags: { redisUrl: g.redisUrl, databaseUrl: g.databaseUrl, queuePrefix: g.prefix, ...extra } });
}

export interface Farm {
  config: Config;
  db: Db;
  queues: FarmQueues;
  close(): Promise<void>;
}

/** Connect to a farm: Redis and PostgreSQL must answer and the schema must be current (installed: made current). */
export async function openFarm(config: Config): Promise<Farm> {
  const [{ createDb, pingDb, pendingMigrations, migrate }, { openQueues, pingRedis }] = await Promise.all([import("@fuzzfarm/db"), import("@fuzzfarm/queue")]);
  await pingRedis(config.redisUrl);
  // Installed in a user's project, the database is created and migrated on first use (plain SQL, no Prisma CLI);
  // in a checkout that is `npm run setup`'s job, and a schema behind is reported below.
  if (BUNDLED) await migrate({ url: config.databaseUrl, repoRoot: REPO_ROOT });
  const db = createDb({ url: config.databaseUrl });
  try {
    await pingDb(db);
    const pending = await pendingMigrations({ url: config.databaseUrl, repoRoot: REPO_ROOT });
    if (pending.length) throw new FuzzFarmError("FF_ERR_DB_DOWN", `database schema is not current (${pending.length} pending migrations): run \`fuzzfarm up\` or \`npm run setup\``);
  } catch (e) {
    // the error above is the one to report; a failing close of a client that never worked adds nothing
    await db.close().catch(() => {});
    throw e;
  }
  const queues = openQueues({ url: config.redisUrl, prefix: config.queuePrefix, jobKey: resolveJobKey(config) });
  return {
    config,
    db,
    queues,
    async close() {
      // closing at the end of a command: a connection that fails to close is dropped with the process
      await queues.close().catch(() => {});
      await db.close().catch(() => {});
    },
  };
}
