// Workers under a Redis ACL user limited to their queues (workerAclRules):
// a real redis-server with an ACL file, a campaign run by the CLI as the
// admin user, a real worker process as the `worker` user. The worker takes
// jobs and publishes results; the same credentials cannot read dashboard
// sessions, publish farm events or list keys.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { workerAclRules } from "@fuzzfarm/queue";
import { REPO, runCli, spawnWorker, testFarm, killAndWait, waitUntil } from "./helpers";

test("a worker under its ACL user runs a campaign's jobs and reaches nothing else", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ff-acl-"));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const adminPw = randomBytes(16).toString("hex");
  const workerPw = randomBytes(16).toString("hex");
  const farm = await testFarm();
  writeFileSync(join(dir, "users.acl"), `user default on >${adminPw} ~* &* +@all\nuser worker on >${workerPw} ${workerAclRules(farm.prefix)}\n`);
  const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--aclfile", join(dir, "users.acl")], { stdio: "ignore" });
  const adminUrl = `redis://default:${adminPw}@127.0.0.1:${port}`;
  const workerUrl = `redis://worker:${workerPw}@127.0.0.1:${port}`;
  const asWorker = new Redis(workerUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  let w: ReturnType<typeof spawnWorker> | undefined;
  try {
    await waitUntil(() => new Promise<boolean>((res) => {
      const sock = connect(port, "127.0.0.1", () => (sock.destroy(), res(true)));
      sock.on("error", () => res(false));
    }), 10_000, "redis-server");
    await asWorker.connect();
    w = spawnWorker({ ...farm.env, FUZZFARM_REDIS_URL: workerUrl, FUZZFARM_ENGINES: "input" });
    const r = await runCli(["fuzz", join(REPO, "examples", "input", "parse-record.ts"), "--time", "8s", "--workers", "0", "--job-seconds", "4", "--maintenance-wait", "0s", "--json"], { ...farm.env, FUZZFARM_REDIS_URL: adminUrl });
    assert.ok(r.code === 0 || r.code === 1, r.stderr.slice(-1500));
    const s = JSON.parse(r.stdout);
    assert.ok(s.jobs >= 1 && s.executions > 0, `jobs ${s.jobs}, executions ${s.executions}; worker log:\n${w.log.join("\n")}`);
    assert.ok(!w.log.some((l) => /NOPERM/.test(l)), w.log.join("\n"));

    const refused = async (what: string, call: () => Promise<unknown>) =>
      assert.rejects(call, (e: Error) => /NOPERM/.test(e.message), what);
    await refused("read a dashboard session", () => asWorker.get(`${farm.prefix}:web:session:abc`));
    await refused("publish a farm event", () => asWorker.publish(`${farm.prefix}:events`, "{}"));
    await refused("list keys", () => asWorker.keys("*"));
    await refused("flush", () => asWorker.flushall());
    await refused("reconfigure", () => asWorker.config("SET", "requirepass", ""));
    assert.equal(await asWorker.hset(`${farm.prefix}:workers`, "probe", "1"), 1, "the heartbeat hash stays writable");
  } finally {
    asWorker.disconnect();
    if (w) await killAndWait(w);
    await killAndWait(redis);
    await farm.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
