// The Redis FuzzFarm starts requires a password: generated once, kept in
// <dataDir>/redis/password (0600), never on redis-server's command line, and
// found again by ensureRedis and by the config loader from a password-less
// local URL. A real redis-server on a spare port; spoken to over raw RESP too,
// so the NOAUTH answer is the server's, not a client library's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureRedis } from "@fuzzfarm/services";
import { pingRedis } from "@fuzzfarm/queue";
import { loadConfig } from "@fuzzfarm/config";

const PATH = process.env.PATH ?? "";

/**
 * A PATH whose first redis-server records its arguments in `<dir>/argv`, then
 * runs the real one: redis-server rewrites its process title, so
 * /proc/<pid>/cmdline alone would hide a password passed as an argument.
 */
function recordingPath(): { path: string; argvFile: string } {
  const real = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).stdout.trim();
  assert.ok(real, "redis-server on PATH");
  const dir = mkdtempSync(join(tmpdir(), "ffredis-bin-"));
  const argvFile = join(dir, "argv");
  writeFileSync(join(dir, "redis-server"), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${argvFile}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  return { path: `${dir}:${PATH}`, argvFile };
}

async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer().once("error", reject);
      s.listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    if (port !== 6379) return port;
  }
}

/** Send RESP commands then QUIT; the server's raw reply text. */
function resp(port: number, commands: string[][]): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    const s = connect(port, "127.0.0.1", () => {
      for (const c of [...commands, ["QUIT"]]) s.write(`*${c.length}\r\n${c.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`);
    });
    s.setEncoding("utf8");
    s.on("data", (d: string) => (out += d));
    s.on("close", () => resolve(out));
    s.on("error", reject);
    s.setTimeout(5000, () => s.destroy(new Error(`no answer from 127.0.0.1:${port}`)));
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function stop(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  if (!pid || !alive(pid)) return;
  process.kill(pid, "SIGKILL");
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
}

test("a Redis FuzzFarm starts requires a generated password, kept 0600 under the data dir and found again", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "ffredis-"));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const file = join(dataDir, "redis", "password");
  const pidFile = join(dataDir, "redis", "redis.pid");
  t.after(() => stop(pidFile));
  const logs: string[] = [];
  const log = (l: string) => logs.push(l);

  const shim = recordingPath();
  const first = await ensureRedis(url, { dataDir, path: shim.path, log });
  assert.equal(first.started, true);
  assert.match(first.how, new RegExp(`started .*redis-server on port ${port} \\(data in .*, password in ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\)`));

  assert.equal(statSync(file).mode & 0o777, 0o600, "password file is 0600");
  assert.equal(statSync(join(dataDir, "redis", "redis.conf")).mode & 0o777, 0o600, "redis.conf holds the password too: 0600");
  const password = readFileSync(file, "utf8").trim();
  assert.match(password, /^[0-9a-f]{64}$/, "32 random bytes");
  assert.equal(first.url, `redis://:${password}@127.0.0.1:${port}`);
  for (const l of [first.how, ...logs]) assert.ok(!l.includes(password), `log line carries no password: ${l}`);

  // Without the password: the server itself says NOAUTH; pingRedis turns it into one line saying what to set.
  assert.match(await resp(port, [["PING"], ["SET", "k", "v"]]), /^-NOAUTH .*\r\n-NOAUTH /);
  await assert.rejects(pingRedis(url), (e: Error & { code?: string }) => {
    assert.equal(e.code, "FF_ERR_CONFIG");
    assert.equal(e.message, `Redis at 127.0.0.1:${port} requires a password: set REDIS_URL=redis://:PASSWORD@127.0.0.1:${port} (or FUZZFARM_REDIS_URL_FILE, a file holding that URL)`);
    return true;
  });
  // With it: the returned URL works, and so does the password over raw RESP.
  await pingRedis(first.url);
  assert.equal(await resp(port, [["AUTH", password], ["SET", "k", "v"], ["GET", "k"]]), "+OK\r\n+OK\r\n$1\r\nv\r\n+OK\r\n");

  // The password is not on the server's command line (ps, /proc/<pid>/cmdline): its only argument is the 0600 config.
  assert.equal(readFileSync(shim.argvFile, "utf8"), `${join(dataDir, "redis", "redis.conf")}\n`);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  assert.match(cmdline, /redis-server/);
  assert.ok(!cmdline.includes(password), `cmdline without password: ${cmdline.replace(/\0/g, " ")}`);

  // A second call with the password-less URL finds the stored password; so does the config loader.
  assert.deepEqual(await ensureRedis(url, { dataDir, path: PATH }), { started: false, how: "already running", url: first.url });
  const config = loadConfig({ cwd: dataDir, env: { REDIS_URL: url, FUZZFARM_DATA_DIR: dataDir } });
  assert.equal(config.redisUrl, first.url);
  await pingRedis(config.redisUrl);

  // An explicit password wins over the stored one (and a wrong one is one line).
  await assert.rejects(ensureRedis(`redis://:wrong@127.0.0.1:${port}`, { dataDir, path: PATH }), (e: Error & { code?: string }) => {
    assert.equal(e.code, "FF_ERR_CONFIG");
    assert.match(e.message, /refuses the user name or password of the Redis URL \(WRONGPASS\)/);
    return true;
  });

  // Stopped (a reboot), it is started again with the same password: processes holding the URL keep working.
  await stop(pidFile);
  const again = await ensureRedis(url, { dataDir, path: PATH });
  assert.equal(again.started, true);
  assert.equal(again.url, first.url);
  assert.equal(readFileSync(file, "utf8").trim(), password);
  await pingRedis(first.url);
});

test("a Redis that wants a password nobody stored, or another one, is one line naming what to set", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "ffredis-"));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  t.after(() => stop(join(dataDir, "redis", "redis.pid")));
  await ensureRedis(url, { dataDir, path: PATH });

  const elsewhere = mkdtempSync(join(tmpdir(), "ffredis-other-"));
  const otherFile = join(elsewhere, "redis", "password");
  await assert.rejects(ensureRedis(url, { dataDir: elsewhere, path: PATH }), (e: Error & { code?: string }) => {
    assert.equal(e.code, "FF_ERR_CONFIG");
    assert.equal(e.message, `Redis at 127.0.0.1:${port} requires a password and none is known: set REDIS_URL=redis://:PASSWORD@127.0.0.1:${port}, or put the password in ${otherFile}`);
    return true;
  });
  assert.ok(!existsSync(otherFile), "no password is invented for a Redis someone else runs");

  mkdirSync(join(elsewhere, "redis"));
  writeFileSync(otherFile, "stale\n", { mode: 0o600 });
  await assert.rejects(ensureRedis(url, { dataDir: elsewhere, path: PATH }), (e: Error & { code?: string }) => {
    assert.equal(e.code, "FF_ERR_CONFIG");
    assert.match(e.message, new RegExp(`^Redis at 127\\.0\\.0\\.1:${port} refuses the password in .*/redis/password .*: set REDIS_URL=redis://:PASSWORD@127\\.0\\.0\\.1:${port}$`));
    assert.ok(!e.message.includes("stale"));
    return true;
  });
});

test("a Redis already running without a password keeps working from a data dir without a password file", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "ffredis-"));
  // The machine's shared Redis (CI, the README's first command): no password, nothing written.
  assert.deepEqual(await ensureRedis("redis://127.0.0.1:6379", { dataDir, path: PATH }), { started: false, how: "already running", url: "redis://127.0.0.1:6379" });
  assert.ok(!existsSync(join(dataDir, "redis")));
});
