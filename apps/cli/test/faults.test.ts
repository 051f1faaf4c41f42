// Faults injected into a running farm, each on services of its own (a
// private redis-server with an append-only file, a private PostgreSQL
// cluster) so the machine's shared ones are never touched. Each test says
// what it injects and checks the final counts: every job done (or cancelled
// before it started), each result applied once, totals equal to the sum of
// the jobs'.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startCoordinator } from "@fuzzfarm/coordinator";
import { createDb } from "@fuzzfarm/db";
import { createTestDatabase } from "@fuzzfarm/db/testing";
import { readHeartbeats } from "@fuzzfarm/queue";
import { ensurePostgres } from "@fuzzfarm/services";
import { REPO, fixture, killAndWait, runCli, spawnWorker, startCli, testFarm, waitUntil } from "./helpers";

const spare = () => 21_000 + Math.floor(Math.random() * 20_000);
const listening = (port: number) =>
  new Promise<boolean>((res) => {
    const s = connect(port, "127.0.0.1", () => (s.destroy(), res(true)));
    s.on("error", () => res(false));
  });

/** A redis-server with an append-only file in `dir`: what a restart keeps is what production keeps. */
function startRedis(port: number, dir: string): ChildProcess {
  return spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", ""], { stdio: "ignore" });
}

/** The campaign's final counts: no job left open, totals equal to the sum over done jobs. */
async function assertCountedOnce(db: ReturnType<typeof createDb>, campaignId: string) {
  const jobs = await db.prisma.job.findMany({ where: { campaignId } });
  assert.deepEqual(jobs.filter((j) => j.status !== "done" && j.status !== "cancelled").map((j) => [j.id, j.kind, j.status]), [], "no job left open");
  const done = jobs.filter((j) => j.status === "done" && j.kind === "fuzz");
  const camp = await db.prisma.campaign.findUniqueOrThrow({ where: { id: campaignId } });
  assert.equal(camp.jobsDone, done.length, "each result applied once");
  assert.equal(Number(camp.execs), done.reduce((n, j) => n + j.execs, 0), "execs counted once per job");
  return { done: done.length, camp };
}

test("Redis restarted mid-campaign: workers and coordinator reconnect and the campaign completes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ff-redis-"));
  const port = spare();
  let redis = startRedis(port, dir);
  const farm = await testFarm({ FUZZFARM_REDIS_URL: `redis://127.0.0.1:${port}`, FUZZFARM_LOCK_MS: "3000" });
  try {
    await waitUntil(() => listening(port), 10_000, "private redis");
    const run = runCli(["fuzz", fixture("quiet.js"), "--time", "20s", "--workers", "2", "--job-seconds", "2", "--json"], farm.env, 180_000);
    await waitUntil(async () => ((await farm.db.prisma.campaign.findFirst())?.jobsDone ?? 0) >= 2, 60_000, "two jobs done");
    // Injected: Redis goes away (SIGTERM: it writes its AOF and exits) and comes back 3 s later on the same port.
    await killAndWait(redis, "SIGTERM");
    const downAt = (await farm.db.prisma.campaign.findFirstOrThrow()).jobsDone;
    await new Promise((r) => setTimeout(r, 3000));
    redis = startRedis(port, dir);
    const r = await run;
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    const s = JSON.parse(r.stdout);
    assert.equal(s.status, "completed");
    const { done } = await assertCountedOnce(farm.db, s.campaignId);
    assert.ok(done > downAt, `jobs done after the restart: ${downAt} -> ${done}`);
  } finally {
    await killAndWait(redis, "SIGKILL");
    await farm.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("PostgreSQL restarted mid-campaign: results wait in Redis and are applied once it is back", { skip: process.getuid?.() !== 0 && "needs root to run a private cluster as postgres" }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "ff-pgfault-"));
  chmodSync(dataDir, 0o755);
  const port = spare();
  const server = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const pgctl = spawnSync("sh", ["-c", "ls /usr/lib/postgresql/*/bin/pg_ctl | tail -1"], { encoding: "utf8" }).stdout.trim();
  const ctl = (...args: string[]) => spawnSync("runuser", ["-u", "postgres", "--", pgctl, "-D", join(dataDir, "postgres"), ...args], { encoding: "utf8" });
  await ensurePostgres(server, { dataDir, path: process.env.PATH ?? "" });
  const database = await createTestDatabase(server);
  const db = createDb({ url: database.url });
  const farm = await testFarm({ FUZZFARM_DATABASE_URL: database.url });
  try {
    const run = runCli(["fuzz", fixture("quiet.js"), "--time", "20s", "--workers", "2", "--job-seconds", "2", "--json"], farm.env, 180_000);
    await waitUntil(async () => ((await db.prisma.campaign.findFirst())?.jobsDone ?? 0) >= 2, 60_000, "two jobs done");
    // Injected: PostgreSQL stops (fast shutdown, connections cut) for 6 s while workers keep publishing results.
    const before = (await db.prisma.campaign.findFirstOrThrow()).jobsDone;
    assert.equal(ctl("-m", "fast", "stop").status, 0);
    await new Promise((r) => setTimeout(r, 6000));
    assert.equal(ctl("-l", join(dataDir, "postgres", "server.log"), "-o", `-p ${port} -k ${join(dataDir, "postgres")} -c listen_addresses=127.0.0.1`, "start").status, 0);
    const r = await run;
    assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr.slice(-2000)}`);
    assert.ok(r.stdout.trim(), `no summary on stdout; stderr: ${r.stderr.slice(-2000)}`);
    const s = JSON.parse(r.stdout);
    const { done } = await assertCountedOnce(db, s.campaignId);
    assert.ok(done > before, `results applied after the restart: ${before} -> ${done} jobs done`);
    const results = await farm.queues.results.getJobCounts("failed");
    assert.equal(results.failed ?? 0, 0, "no result was dropped");
  } finally {
    await db.close().catch(() => {});
    await farm.close().catch(() => {});
    await database.drop().catch(() => {});
    ctl("-m", "immediate", "stop");
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a worker killed in the middle of a replay job: another finishes it; the bucket's replay is counted once", async () => {
  const farm = await testFarm({ FUZZFARM_LOCK_MS: "2000" });
  const workers = [spawnWorker(farm.env), spawnWorker(farm.env)];
  try {
    const run = runCli(["fuzz", fixture("slow-crash.js"), "--time", "10s", "--workers", "0", "--job-seconds", "4", "--json"], farm.env, 300_000);
    // Injected: kill -9 of the worker holding the bucket's replay job.
    let victim: number | undefined;
    let finished = false;
    void run.then(() => (finished = true));
    await waitUntil(async () => {
      if (finished) throw new Error(`the campaign ended before a replay was seen: ${(await run).stdout.slice(0, 600)}\n${workers.map((w) => w.log.join("\n")).join("\n")}`);
      const active = await farm.queues.maintenance.input.getJobs(["active"]);
      const replay = active.find((j) => (j.data as { kind?: string }).kind === "replay");
      if (!replay) return false;
      const beat = (await readHeartbeats(farm.queues.connection, farm.prefix)).find((b) => b.currentJobId === replay.id);
      victim = beat?.pid;
      return victim !== undefined;
    }, 200_000, "a replay job running on a worker");
    const proc = workers.find((w) => w.pid === victim)!;
    await killAndWait(proc, "SIGKILL");
    const r = await run;
    assert.equal(r.code, 1, r.stderr.slice(-2000));
    const s = JSON.parse(r.stdout);
    assert.equal(s.buckets.length, 1);
    assert.deepEqual(s.buckets[0].reproduction, { runs: 20, hits: 20, label: "reliable" }, "one replay of 20 runs, applied once");
    const replays = await farm.db.prisma.job.findMany({ where: { campaignId: s.campaignId, kind: "replay" } });
    assert.equal(replays.length, 1);
    assert.equal(replays[0]!.status, "done");
  } finally {
    await Promise.all(workers.map((w) => killAndWait(w)));
    await farm.close();
  }
});

test("coordinator killed while enqueuing: a new one enqueues what is missing and every job runs once", async () => {
  const farm = await testFarm();
  const w = spawnWorker(farm.env);
  try {
    // Injected: kill -9 of the CLI (and its coordinator) right after the campaign row and its first job rows exist.
    const first = startCli(["fuzz", fixture("quiet.js"), "--time", "10s", "--workers", "0", "--job-seconds", "1"], farm.env);
    await waitUntil(async () => (await farm.db.prisma.job.count()) >= 1, 60_000, "the first job rows");
    first.proc.kill("SIGKILL");
    await first.done;
    const camp = await farm.db.prisma.campaign.findFirstOrThrow();
    const coordinator = await startCoordinator({ db: farm.db, queues: farm.queues, redisUrl: farm.env.FUZZFARM_REDIS_URL!, rootDir: REPO, graceMs: 10_000 });
    try {
      assert.equal(await coordinator.waitForCampaign(camp.id), "completed");
    } finally {
      await coordinator.stop();
    }
    const { done } = await assertCountedOnce(farm.db, camp.id);
    assert.ok(done >= 2, `${done} jobs done`);
  } finally {
    await killAndWait(w);
    await farm.close();
  }
});

test("SIGTERM on a worker mid-job: the engine stops early, the job's result is applied, the worker exits within its grace period", async () => {
  const farm = await testFarm();
  const w = spawnWorker(farm.env);
  try {
    const run = runCli(["fuzz", fixture("quiet.js"), "--time", "8s", "--workers", "0", "--job-seconds", "20", "--json"], farm.env, 180_000);
    let jobId: string | undefined;
    await waitUntil(async () => {
      jobId = (await readHeartbeats(farm.queues.connection, farm.prefix)).find((b) => b.pid === w.pid && b.currentJobId)?.currentJobId ?? undefined;
      return !!jobId;
    }, 60_000, "the worker to start a job");
    await new Promise((r) => setTimeout(r, 1500));
    // Injected: SIGTERM, as `docker stop` or Kubernetes sends; the job's budget (20 s) is far from spent.
    const t0 = Date.now();
    await killAndWait(w, "SIGTERM");
    const exitMs = Date.now() - t0;
    assert.ok(exitMs < 15_000, `exited ${exitMs} ms after SIGTERM`);
    await waitUntil(async () => (await farm.db.prisma.job.findUnique({ where: { id: jobId! } }))?.status === "done", 30_000, "the interrupted job's result to be applied");
    const job = await farm.db.prisma.job.findUniqueOrThrow({ where: { id: jobId! } });
    assert.ok(job.execs > 0 && job.busyMs < 20_000, `partial work kept: ${job.execs} execs in ${job.busyMs} ms`);
    const w2 = spawnWorker(farm.env);
    try {
      const r = await run;
      assert.equal(r.code, 0, r.stderr.slice(-1500));
      await assertCountedOnce(farm.db, JSON.parse(r.stdout).campaignId);
    } finally {
      await killAndWait(w2);
    }
  } finally {
    await killAndWait(w);
    await farm.close();
  }
});
