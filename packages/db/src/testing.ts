// Test helper (export "./testing"): a fresh PostgreSQL schema per test,
// with every committed migration applied by plain SQL, so tests run against
// real PostgreSQL in isolation and in milliseconds.
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createDb, type Db } from "./client";
import { migrationNames, migrationSql } from "./migrate";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

export interface TestDb extends Db {
  schema: string;
  url: string;
}

/** Default: the local `fuzzfarm_test` database (created on first use). */
export async function createTestDb(baseUrl = "postgresql://postgres@127.0.0.1:5432/fuzzfarm_test"): Promise<TestDb> {
  const { ensureDatabase } = await import("./migrate");
  await ensureDatabase(baseUrl);
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  try {
    await c.query(`CREATE SCHEMA "${schema}"`);
    await c.query(`SET search_path TO "${schema}"`);
    for (const name of migrationNames(repoRoot)) await c.query(migrationSql(repoRoot, name));
  } finally {
    await c.end();
  }
  const db = createDb({ url: baseUrl, schema, poolMax: 20 });
  return {
    ...db,
    schema,
    url: baseUrl,
    async close() {
      await db.close();
      const d = new pg.Client({ connectionString: baseUrl });
      await d.connect();
      await d.query(`DROP SCHEMA "${schema}" CASCADE`).catch(() => {});
      await d.end();
    },
  };
}

/**
 * A fresh database with every migration applied and recorded in
 * `_prisma_migrations` exactly as `prisma migrate deploy` would, for tests
 * that run whole apps (which check that the schema is current).
 */
export async function createTestDatabase(serverUrl = "postgresql://postgres@127.0.0.1:5432/postgres"): Promise<{ url: string; drop(): Promise<void> }> {
  const { createHash, randomUUID } = await import("node:crypto");
  const name = `fuzzfarm_t_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  try {
    await c.query(`CREATE TABLE "_prisma_migrations" ("id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ, "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    for (const m of migrationNames(repoRoot)) {
      const sql = migrationSql(repoRoot, m);
      await c.query(sql);
      await c.query(`INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`, [
        randomUUID(),
        createHash("sha256").update(sql).digest("hex"),
        m,
      ]);
    }
  } finally {
    await c.end();
  }
  return {
    url: url.toString(),
    async drop() {
      const d = new pg.Client({ connectionString: serverUrl });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
      await d.end();
    },
  };
}
