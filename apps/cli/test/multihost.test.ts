// Scale-out across "hosts": network namespaces joined by a bridge, with
// addresses from 198.18.0.0/15 (reserved for benchmarks, so no real network
// is ever addressed), one /24 per run that no interface holds yet: a run
// killed before its cleanup leaves its bridge and address behind, and a second
// bridge on the same /24 took the workers' traffic away (none joined).
// Redis, PostgreSQL and the coordinator are on the first host (the root namespace: Redis listens on the bridge
// address), three workers on hosts of their own. Mid-campaign one worker's
// link goes down and comes back: its job is handed to another worker when
// its lock expires, every job is applied exactly once, and the worker
// rejoins and takes jobs again. Needs root and iproute2 (as CI has here).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Redis } from "ioredis";
import { readHeartbeats, type Heartbeat } from "@fuzzfarm/queue";
import { REPO, WORKER, killAndWait, runCli, testFarm, waitUntil } from "./helpers";

const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });
const canNetns = (() => {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync("ip", ["netns", "list"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

test("three worker hosts on their own addresses; one host's link drops mid-job and comes back: nothing lost or counted twice", { skip: canNetns ? false : "needs root and ip netns" }, async () => {
  const r = randomBytes(2).toString("hex");
  const bridge = `ffb${r}`;
  const taken = execFileSync("ip", ["-o", "-4", "addr", "show"], { encoding: "utf8" });
  const free = Array.from({ length: 256 }, (_, i) => i).filter((i) => !taken.includes(` 198.18.${i}.`));
  const net = `198.18.${free[Math.floor(Math.random() * free.length)]}`;
  const hosts = [1, 2, 3].map((i) => ({ ns: `ffh${r}-${i}`, veth: `ffv${r}${i}`, peer: `ffp${r}${i}`, addr: `${net}.${10 + i}` }));
  const redisAddr = `${net}.1`;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const password = randomBytes(12).toString("hex");
  const redisUrl = `redis://:${password}@${redisAddr}:${port}`;
  const procs: ChildProcess[] = [];
  let redis: Redis | undefined;
  const farm = await testFarm({ FUZZFARM_REDIS_URL: redisUrl, FUZZFARM_LOCK_MS: "3000" });
  try {
    ip("link", "add", bridge, "type", "bridge");
    ip("addr", "add", `${redisAddr}/24`, "dev", bridge);
    ip("link", "set", bridge, "up");
    for (const h of hosts) {
      ip("netns", "add", h.ns);
      ip("link", "add", h.veth, "type", "veth", "peer", "name", h.peer);
      ip("link", "set", h.peer, "netns", h.ns);
      ip("link", "set", h.veth, "master", bridge, "up");
      ip("-n", h.ns, "addr", "add", `${h.addr}/24`, "dev", h.peer);
      ip("-n", h.ns, "link", "set", h.peer, "up");
      ip("-n", h.ns, "link", "set", "lo", "up");
    }
    const server = spawn("redis-server", ["--bind", redisAddr, "--port", String(port), "--requirepass", password, "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    procs.push(server);
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
    await waitUntil(async () => redis!.connect().then(() => true, () => (redis!.disconnect(), false)), 10_000, "redis on the bridge");

    // Each worker process lives in its host's namespace and reaches Redis only over its link.
    const workers = hosts.map((h) => {
      const p = spawn("ip", ["netns", "exec", h.ns, process.execPath, "--import", "tsx", WORKER], {
        cwd: REPO,
        env: { ...farm.env, FUZZFARM_ENGINES: "input" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      const log: string[] = [];
      p.stderr!.setEncoding("utf8");
      p.stderr!.on("data", (d: string) => log.push(...d.split("\n").filter(Boolean)));
      procs.push(p);
      return { ...h, proc: p, log };
    });
    const beats = () => readHeartbeats(redis!, farm.prefix, 5_000);
    await waitUntil(async () => (await beats()).length === 3, 120_000, "three workers to join").catch(async (e: Error) => {
      const seen = (await beats()).map((b: Heartbeat) => b.id);
      throw new Error(`${e.message}: heartbeats ${JSON.stringify(seen)}; logs:\n${workers.map((w) => `${w.ns} (exit ${w.proc.exitCode}): ${w.log.slice(-4).join(" | ")}`).join("\n")}`);
    });

    const campaign = runCli(["fuzz", join(REPO, "examples", "input", "parse-record.ts"), "--time", "24s", "--workers", "0", "--job-seconds", "2", "--json"], farm.env, 240_000);

    // Wait until the first host's worker is inside a job, then cut its link for longer than the lock.
    const first = workers[0]!;
    const idOf = async () => (await beats()).find((b: Heartbeat) => b.currentJobId !== null && first.log.some((l) => l.includes(b.id)));
    await waitUntil(async () => !!(await idOf()), 60_000, "host 1 to run a job");
    const cut = (await idOf())!;
    ip("link", "set", first.veth, "down");
    await new Promise((res) => setTimeout(res, 9_000));
    ip("link", "set", first.veth, "up");
    const cutAt = Date.now();

    const out = await campaign;
    assert.ok(out.code === 0 || out.code === 1, out.stderr.slice(-2000));
    const summary = JSON.parse(out.stdout);

    // Every job row ends done, or cancelled when the deadline came before it started; none is left
    // queued or running, and the campaign's totals are the sum of its done jobs' (nothing counted twice).
    const jobs = await farm.db.prisma.job.findMany({ where: { campaignId: summary.campaignId } });
    // Replay and minimize jobs of a bucket the campaign found are job rows too, not counted in the campaign's totals.
    const done = jobs.filter((j) => j.status === "done" && j.kind === "fuzz");
    assert.ok(done.length >= 6, `${done.length} jobs done`);
    assert.deepEqual(jobs.filter((j) => j.status !== "done" && j.status !== "cancelled").map((j) => [j.id, j.status]), []);
    assert.ok(jobs.filter((j) => j.status === "cancelled").every((j) => j.execs === 0 && j.workerId === null));
    const camp = await farm.db.prisma.campaign.findUniqueOrThrow({ where: { id: summary.campaignId } });
    assert.equal(camp.jobsDone, done.length);
    assert.equal(Number(camp.execs), done.reduce((n, j) => n + j.execs, 0));
    // Jobs ran on more than one host, and the job cut off with host 1 was finished (by whoever kept the lock).
    assert.ok(new Set(done.map((j) => j.workerId)).size >= 2);
    const cutJob = jobs.find((j) => j.id === cut.currentJobId);
    assert.equal(cutJob?.status, "done");

    // Host 1 rejoined: a fresh heartbeat after the link came back, and more jobs done than when it was cut.
    await waitUntil(async () => ((await beats()).find((b) => b.id === cut.id)?.at ?? 0) > cutAt, 20_000, "host 1 to heartbeat again");
    const now = (await beats()).find((b) => b.id === cut.id)!;
    assert.ok(now.jobsDone > cut.jobsDone, `host 1 took jobs again (${cut.jobsDone} -> ${now.jobsDone})`);
  } finally {
    redis?.disconnect();
    for (const p of procs.reverse()) await killAndWait(p, "SIGKILL").catch(() => {});
    for (const h of hosts) {
      try {
        execFileSync("ip", ["netns", "pids", h.ns]).toString().split(/\s+/).filter(Boolean).forEach((pid) => process.kill(Number(pid), "SIGKILL"));
      } catch {
        // namespace already gone
      }
      try {
        ip("netns", "del", h.ns);
      } catch {
        // never created
      }
      try {
        ip("link", "del", h.veth);
      } catch {
        // removed with its namespace
      }
    }
    try {
      ip("link", "del", bridge);
    } catch {
      // never created
    }
    await farm.close();
  }
});
