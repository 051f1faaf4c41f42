// What every farm command needs: the parsed config and connections, opened
// with one clear error when a service does not answer (exit 2).
import { fileURLToPath } from "node:url";
import { loadConfig, type Config, type ConfigInput } from "@fuzzfarm/config";
import { createDb, pingDb, pendingMigrations, type Db } from "@fuzzfarm/db";
import { openQueues, pingRedis, type FarmQueues } from "@fuzzfarm/queue";
import { FuzzFarmError } from "@fuzzfarm/protocol";

/** The repository root (holds prisma/, examples/, node_modules/). */
export const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

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

/** Connect to an existing farm: Redis and PostgreSQL must answer and the schema must be current. */
export async function openFarm(config: Config): Promise<Farm> {
  await pingRedis(config.redisUrl);
  const db = createDb({ url: config.databaseUrl });
  try {
    await pingDb(db);
    const pending = await pendingMigrations({ url: config.databaseUrl, repoRoot: REPO_ROOT });
    if (pending.length) throw new FuzzFarmError("FF_ERR_DB_DOWN", `database schema is not current (${pending.length} pending migrations): run \`fuzzfarm up\` or \`npm run setup\``);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  const queues = openQueues({ url: config.redisUrl, prefix: config.queuePrefix });
  return {
    config,
    db,
    queues,
    async close() {
      await queues.close().catch(() => {});
      await db.close().catch(() => {});
    },
  };
}
