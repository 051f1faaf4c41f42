// @fuzzfarm/services: bring up the farm's local services (Redis, PostgreSQL)
// when they do not answer, and prepare the database (create + migrate).
import { migrate } from "@fuzzfarm/db";
import { ensureRedis } from "./redis";
import { ensurePostgres } from "./postgres";
import type { EnsureOptions } from "./common";

export { ensureRedis, ensurePostgres, type EnsureOptions };
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

/** Ensure PostgreSQL answers (starting it if allowed), create and migrate the database, then ensure Redis answers. */
export async function ensureServices(o: ServicesOptions): Promise<void> {
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
  if (o.start !== false) {
    const r = await ensureRedis(o.redisUrl, { ...o, log });
    log(`redis: ${r.how}`);
  }
}
