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
