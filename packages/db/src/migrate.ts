// Database creation and migrations, idempotent. `prisma migrate deploy` is
// the source of truth for the real database (it records _prisma_migrations);
// it is only invoked when a committed migration is not yet applied, because
// the Wasm schema engine takes ~10 s to start. Where the Prisma CLI is not
// installed (the published `fuzzfarm` package ships the migrations, not the
// CLI), pending migrations are applied here the way `migrate deploy` does:
// each in its own transaction, recorded in _prisma_migrations with the
// SHA-256 checksum Prisma computes, so the CLI sees them as applied.
import { spawnSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { redactUrl } from "./client";

export interface MigrateOptions {
  url: string;
  /** Repository root holding prisma/ and node_modules/.bin/prisma. */
  repoRoot: string;
}

export function migrationNames(repoRoot: string): string[] {
  const dir = join(repoRoot, "prisma", "migrations");
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort();
}

export function migrationSql(repoRoot: string, name: string): string {
  return readFileSync(join(repoRoot, "prisma", "migrations", name, "migration.sql"), "utf8");
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await c.connect();
  } catch (e) {
    throw new FuzzFarmError("FF_ERR_DB_DOWN", `PostgreSQL at ${redactUrl(url)} does not answer: ${(e as Error).message}`);
  }
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

/** Create the database named in `url` if it does not exist (connects to the `postgres` database to do so). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.replace(/^\//, ""));
  if (!/^[A-Za-z0-9_\-]+$/.test(name)) throw new FuzzFarmError("FF_ERR_CONFIG", `unsupported database name "${name}"`);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  return withClient(admin.toString(), async (c) => {
    const r = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (r.rowCount) return false;
    await c.query(`CREATE DATABASE "${name}"`);
    return true;
  });
}

/** Names of committed migrations not yet recorded as applied in the database. */
export async function pendingMigrations(opts: MigrateOptions): Promise<string[]> {
  const all = migrationNames(opts.repoRoot);
  const applied = await withClient(opts.url, async (c) => {
    const t = await c.query("SELECT to_regclass('public._prisma_migrations') AS t");
    if (!t.rows[0].t) return new Set<string>();
    const r = await c.query("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL");
    return new Set(r.rows.map((x: { migration_name: string }) => x.migration_name));
  });
  return all.filter((n) => !applied.has(n));
}

/** Placeholder engine files: the Prisma CLI resolves native engines at start but never runs them with engine "js". */
function placeholderEngine(repoRoot: string): string {
  const dir = join(repoRoot, ".fuzzfarm");
  mkdirSync(dir, { recursive: true });
  const p = join(dir, "prisma-engine-placeholder");
  if (!existsSync(p)) writeFileSync(p, "");
  return p;
}

/** Environment for running the Prisma CLI offline (see docs/prisma-offline.md). */
export function prismaCliEnv(repoRoot: string, url: string): NodeJS.ProcessEnv {
  const placeholder = placeholderEngine(repoRoot);
  return {
    ...process.env,
    DATABASE_URL: url,
    PRISMA_SCHEMA_ENGINE_BINARY: placeholder,
    PRISMA_QUERY_ENGINE_LIBRARY: placeholder,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  };
}

/** Create the database if needed and apply pending migrations. Returns what was applied. */
export async function migrate(opts: MigrateOptions): Promise<{ created: boolean; applied: string[] }> {
  const created = await ensureDatabase(opts.url);
  const pending = await pendingMigrations(opts);
  if (pending.length === 0) return { created, applied: [] };
  const bin = join(opts.repoRoot, "node_modules", ".bin", "prisma");
  if (!existsSync(bin)) {
    await applyWithoutCli(opts, pending);
    return { created, applied: pending };
  }
  const r = spawnSync(bin, ["migrate", "deploy"], { cwd: opts.repoRoot, env: prismaCliEnv(opts.repoRoot, opts.url), encoding: "utf8" });
  if (r.status !== 0) {
    const why = `${r.stderr}${r.stdout}`.split("\n").filter((l) => /error/i.test(l)).shift() ?? `exit ${r.status}`;
    throw new FuzzFarmError("FF_ERR_DB_DOWN", `migrations failed on ${redactUrl(opts.url)}: ${why.trim()}`);
  }
  return { created, applied: pending };
}

/** Prisma's migrations table, as `migrate deploy` creates it. */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/** Apply `pending` in order, each in one transaction with its _prisma_migrations row; a lock keeps two starters from racing. */
async function applyWithoutCli(opts: MigrateOptions, pending: string[]): Promise<void> {
  await withClient(opts.url, async (c) => {
    await c.query("SELECT pg_advisory_lock(72707369)");
    try {
      await c.query(MIGRATIONS_TABLE);
      for (const name of pending) {
        const done = await c.query("SELECT 1 FROM _prisma_migrations WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL", [name]);
        if (done.rowCount) continue;
        const sql = migrationSql(opts.repoRoot, name);
        const checksum = createHash("sha256").update(sql).digest("hex");
        try {
          await c.query("BEGIN");
          await c.query(sql);
          await c.query(
            "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ($1, $2, $3, now(), now(), 1)",
            [randomUUID(), checksum, name],
          );
          await c.query("COMMIT");
        } catch (e) {
          await c.query("ROLLBACK").catch(() => {});
          throw new FuzzFarmError("FF_ERR_DB_DOWN", `migration ${name} failed on ${redactUrl(opts.url)}: ${(e as Error).message.split("\n")[0]}`);
        }
      }
    } finally {
      await c.query("SELECT pg_advisory_unlock(72707369)").catch(() => {});
    }
  });
}
