// Real services: starting a private PostgreSQL cluster on a spare port, as
// `fuzzfarm up` does when nothing answers (its redis-server, with the password
// it generates: redis-password.test.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { ensureRedis, ensurePostgres } from "@fuzzfarm/services";

const PATH = process.env.PATH ?? "";

test("a missing server binary is one line naming the Debian package and the compose file", async () => {
  await assert.rejects(ensureRedis("redis://127.0.0.1:6392", { dataDir: tmpdir(), path: "/nonexistent" }), (e: Error & { code?: string }) => {
    assert.equal(e.code, "FF_ERR_SERVICE_START");
    assert.match(e.message, /redis-server is not installed: apt-get install redis-server, or docker compose -f infra\/docker-compose.yml up -d redis/);
    assert.equal(e.message.split("\n").length, 1);
    return true;
  });
});

test("a private PostgreSQL cluster is initialised and started under the data dir", { skip: process.getuid?.() !== 0 && "needs root to run as the postgres user" }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "ffpg-"));
  chmodSync(dataDir, 0o755);
  const url = "postgresql://postgres@127.0.0.1:5439/fuzzfarm";
  const dir = join(dataDir, "postgres");
  try {
    const r = await ensurePostgres(url, { dataDir, path: PATH });
    assert.equal(r.started, true);
    assert.match(r.how, /private cluster .* on port 5439/);
    assert.deepEqual(await ensurePostgres(url, { dataDir, path: PATH }), { started: false, how: "already running" });
  } finally {
    const pgctl = spawnSync("sh", ["-c", "ls /usr/lib/postgresql/*/bin/pg_ctl | tail -1"], { encoding: "utf8" }).stdout.trim();
    spawnSync("runuser", ["-u", "postgres", "--", pgctl, "-D", dir, "-m", "immediate", "stop"]);
  }
});
