// @fuzzfarm/services: bring up the farm's local services (Redis, PostgreSQL)
// when they do not answer, and prepare the database (create + migrate).
import { migrate } from "@fuzzfarm/db";
import { ensureRedis, type RedisEnsureResult } from "./redis";
import { ensurePostgres } from "./postgres";
import type { EnsureOptions } from "./common";

export { ensureRedis, ensurePostgres, type EnsureOptions, type RedisEnsureResult };
export { embeddedPostgresBinaries, canAptInstall, type PostgresBinaries } from "./install";
export type { EnsureResult } from "./common";

export interface ServicesOptions extends EnsureOptions {
  redisUrl: string;
  databaseUrl: string;
  repoRoot: string;
  /** Start what is missing (true for `up`); false only checks. Default true. */
  start?: boolean;
  log?: (line: string) => void;
}

export interface ServicesResult {
  /** The Redis URL to connect with: `redisUrl`, or with the password of the Redis just started filled in. */
  redisUrl: string;
}

/**
 * Ensure PostgreSQL answers (starting it if allowed), create and migrate the database, then ensure Redis answers.
 * A Redis started here requires a password: use the returned `redisUrl`.
 */
export async function ensureServices(o: ServicesOptions): Promise<ServicesResult> {
  const log = o.log ?? (() => {});
  const { pingRedis } = await import("@fuzzfarm/queue");
  if (o.start === false) await pingRedis(o.redisUrl);
  else {
    const p = await ensurePostgres(o.databaseUrl, { ...o, log });
    log(`postgres: ${p.how}`);
  }
  const m = await migrate({ url: o.databaseUrl, repoRoot: o.repoRoot });
  log(`database: ${m.created ? "created, " : ""}${m.applied.length ? `applied ${m.applied.join(", ")}` : "migrations up to date"}`);
  // Redis last: on a machine where only PostgreSQL could be provided (embedded, no root), the database is ready
  // and the one line left says what Redis needs.
  if (o.start === false) return { redisUrl: o.redisUrl };
  const r = await ensureRedis(o.redisUrl, { ...o, log });
  log(`redis: ${r.how}`);
  return { redisUrl: r.url };
}
