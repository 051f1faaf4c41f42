// The whole farm against real Redis and PostgreSQL: CLI, coordinator,
// worker processes and the input engine, including the failure cases of
// the foundation issue (kill -9 of a worker, coordinator restart, services
// down, hangs, malformed jobs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startCoordinator } from "@fuzzfarm/coordinator";
import { parseJob } from "@fuzzfarm/protocol";
import { readHeartbeats, signJobData } from "@fuzzfarm/queue";
import { REPO, fixture, runCli, startCli, spawnWorker, testFarm, waitUntil, killAndWait } from "./helpers";

const EXAMPLE = join(REPO, "examples", "input", "magic-bytes.ts");

test("fuzz finds the eight-byte example, reports a bucket as JSON and repro replays it", async () => {
  const farm = await testFarm();
  try {
    const r = await runCli(["fuzz", EXAMPLE, "--time", "60s", "--workers", "2", "--stop-on-crash", "--json", "-o", "dictionary=false"], farm.env, 150_000);
    assert.equal(r.code, 1, `exit 1 = new buckets; stderr: ${r.stderr.slice(-2000)}`);
    const s = JSON.parse(r.stdout.trim().split("\n").pop()!);
    assert.equal(s.status, "completed");
    assert.ok(s.executions > 0 && s.coverage.covered > 0 && s.corpusSize > 0, JSON.stringify(s));
    assert.equal(s.buckets.length, 1, JSON.stringify(s.buckets));
    const b = s.buckets[0];
    assert.equal(b.kind, "uncaught");
    assert.ok(b.isNew && b.count >= 1 && b.reproducer === `fuzzfarm repro ${b.id}`);
    assert.ok(s.seconds < 60, "found well within the 60 s budget");
    // Replayed 20 times by a maintenance job (deterministic target: every replay hits), then minimized.
    assert.deepEqual(b.reproduction, { runs: 20, hits: 20, label: "reliable" });
    assert.equal(b.status, "confirmed");
    assert.equal(b.minimized, true);
    const bucket = await farm.db.prisma.crashBucket.findUniqueOrThrow({ where: { id: b.id } });
    assert.equal(Buffer.from(bucket.minimized!).subarray(0, 8).toString("latin1"), "FUZZFARM", "minimized input keeps the 8 magic bytes");
    assert.ok(bucket.minimized!.length <= 8, `minimized to ${bucket.minimized!.length} bytes`);
    const rep = await runCli(["repro", b.id], farm.env);
    assert.equal(rep.code, 0, rep.stdout + rep.stderr);
    assert.match(rep.stdout, /reproduced in 1\/1/);
  } finally {
    await farm.close();
  }
});

test("the same bug hit thousands of times is one bucket whose count is every hit", async () => {
  const farm = await testFarm();
  try {
    // 4 s jobs: on a loaded CI machine an 8 s campaign of 2 s jobs once ran 113 executions (executor start-up took
    // most of the first job, the second started at the deadline).
    const r = await runCli(["fuzz", fixture("crash-often.js"), "--time", "16s", "--workers", "1", "--job-seconds", "4", "--json"], farm.env);
    assert.equal(r.code, 1, r.stderr.slice(-2000));
    const s = JSON.parse(r.stdout);
    assert.equal(s.buckets.length, 1, JSON.stringify(s.buckets));
    const reports = await farm.db.prisma.crashReport.findMany({ where: { bucketId: s.buckets[0].id } });
    const hits = reports.reduce((n, rep) => n + Number((rep.artifact as { detail?: { hits?: number } }).detail?.hits ?? 1), 0);
    assert.equal(s.buckets[0].count, hits, "bucket count = sum of the hits reported");
    // Half of the inputs crash; a count far below the executions would mean hits were lost on the way.
    const jobs = await farm.db.prisma.job.findMany({ where: { campaignId: s.campaignId }, select: { id: true, status: true, execs: true, error: true } });
    const why = `count ${s.buckets[0].count} of ${s.executions} executions; jobs ${JSON.stringify(jobs)}\n${r.stderr.slice(-1500)}`;
    assert.ok(s.buckets[0].count >= 1000, why);
    assert.ok(s.buckets[0].count >= s.executions * 0.2, why);
  } finally {
    await farm.close();
  }
});

test("kill -9 of a worker mid-job: the job runs again elsewhere, nothing lost or counted twice", async () => {
  const farm = await testFarm({ FUZZFARM_LOCK_MS: "2000" });
  const w1 = spawnWorker(farm.env);
  const w2 = spawnWorker(farm.env);
  try {
    const run = runCli(["fuzz", fixture("quiet.js"), "--time", "14s", "--workers", "0", "--job-seconds", "3", "--json"], farm.env);
    let victim: { jobId: string; workerId: string; pid: number } | undefined;
    await waitUntil(async () => {
      const beats = await readHeartbeats(farm.queues.connection, farm.prefix);
      const busy = beats.find((b) => b.currentJobId);
      if (busy) victim = { jobId: busy.currentJobId!, workerId: busy.id, pid: busy.pid };
      return !!busy;
    }, 30_000, "a worker busy with a job");
    const proc = [w1, w2].find((w) => w.pid === victim!.pid)!;
    await killAndWait(proc, "SIGKILL");
    const r = await run;
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    const job = await farm.db.prisma.job.findUniqueOrThrow({ where: { id: victim!.jobId } });
    assert.equal(job.status, "done", "the killed worker's job was run again");
    assert.notEqual(job.workerId, victim!.workerId, "by another worker");
    const camp = await farm.db.prisma.campaign.findFirstOrThrow();
    const jobs = await farm.db.prisma.job.findMany({ where: { campaignId: camp.id } });
    assert.deepEqual(jobs.filter((j) => j.status === "queued"), [], "no job left behind");
    const done = jobs.filter((j) => j.status === "done" && j.kind === "fuzz");
    assert.equal(camp.jobsDone, done.length, "each result applied once");
    assert.equal(Number(camp.execs), done.reduce((n, j) => n + j.execs, 0), "execs counted once per job");
  } finally {
    await Promise.all([killAndWait(w1), killAndWait(w2)]);
    await farm.close();
  }
});

test("coordinator stopped and restarted mid-campaign: the campaign resumes and completes", async () => {
  const farm = await testFarm();
  const w = spawnWorker(farm.env);
  try {
    const first = startCli(["fuzz", fixture("quiet.js"), "--time", "12s", "--workers", "0", "--job-seconds", "1"], farm.env);
    await waitUntil(async () => (await farm.db.prisma.campaign.findFirst())?.jobsDone! >= 2, 30_000, "two jobs done");
    // Kill the CLI that hosts the coordinator (not gracefully).
    first.proc.kill("SIGKILL");
    await first.done;
    const camp = await farm.db.prisma.campaign.findFirstOrThrow();
    assert.equal(camp.status, "running", "left running by the dead coordinator");
    const before = camp.jobsDone;
    const coordinator = await startCoordinator({ db: farm.db, queues: farm.queues, redisUrl: farm.env.FUZZFARM_REDIS_URL!, rootDir: REPO, graceMs: 10_000 });
    try {
      assert.equal(await coordinator.waitForCampaign(camp.id), "completed");
    } finally {
      await coordinator.stop();
    }
    const after = await farm.db.prisma.campaign.findUniqueOrThrow({ where: { id: camp.id } });
    assert.ok(after.jobsDone > before, `jobs done after restart: ${before} -> ${after.jobsDone}`);
    assert.equal(await farm.db.prisma.job.count({ where: { campaignId: camp.id, status: "queued" } }), 0);
  } finally {
    await killAndWait(w);
    await farm.close();
  }
});

test("Redis or PostgreSQL down at start: one clear line, exit 2, nothing written", async () => {
  const farm = await testFarm();
  try {
    const noRedis = await runCli(["fuzz", fixture("quiet.js"), "--time", "5s", "--redis-url", "redis://127.0.0.1:1"], farm.env);
    assert.equal(noRedis.code, 2);
    assert.match(noRedis.stderr.trim(), /^fuzzfarm: FF_ERR_REDIS_DOWN: Redis at 127\.0\.0\.1:1 does not answer/);
    assert.equal(noRedis.stderr.trim().split("\n").length, 1);
    const noPg = await runCli(["fuzz", fixture("quiet.js"), "--time", "5s", "--database-url", "postgresql://postgres@127.0.0.1:1/nope"], farm.env);
    assert.equal(noPg.code, 2);
    assert.match(noPg.stderr.trim(), /^fuzzfarm: FF_ERR_DB_DOWN: PostgreSQL at 127\.0\.0\.1:1\/nope does not answer/);
    const missing = await runCli(["fuzz", "no/such/target.js"], farm.env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /FF_ERR_TARGET_NOT_FOUND: target no\/such\/target\.js does not exist/);
    assert.equal(await farm.db.prisma.campaign.count(), 0);
    assert.equal(await farm.db.prisma.target.count(), 0);
  } finally {
    await farm.close();
  }
});

test("a hanging target is killed at its timeout and reported as a hang, not a lost job", async () => {
  const farm = await testFarm();
  try {
    const r = await runCli(["fuzz", fixture("hangs.js"), "--time", "6s", "--workers", "1", "--job-seconds", "2", "-o", "timeoutMs=200", "--json"], farm.env);
    assert.equal(r.code, 1, r.stderr.slice(-2000));
    const s = JSON.parse(r.stdout);
    assert.deepEqual(s.buckets.map((b: { kind: string }) => b.kind), ["hang"]);
    const camp = await farm.db.prisma.campaign.findFirstOrThrow();
    assert.equal(await farm.db.prisma.job.count({ where: { campaignId: camp.id, status: "queued" } }), 0);
    assert.ok(camp.jobsDone >= 1);
  } finally {
    await farm.close();
  }
});

test("a malformed job payload is rejected by the schema with a clear error; the worker carries on", async () => {
  const farm = await testFarm();
  const w = spawnWorker(farm.env);
  try {
    // Signed with the farm's key (it passes the signature check) but malformed.
    await farm.queues.jobs.input.add("fuzz", signJobData({ jobId: "bad-1", campaignId: "c-1", engine: "input", budget: { runs: "many" } }, farm.env.FUZZFARM_JOB_KEY!) as never, { jobId: "bad-1" });
    await waitUntil(async () => (await farm.queues.jobs.input.getJob("bad-1"))?.failedReason !== undefined, 20_000, "the job to fail");
    const failed = (await farm.queues.jobs.input.getJob("bad-1"))!;
    assert.match(failed.failedReason, /^FF_ERR_BAD_JOB: malformed job payload: /);
    assert.equal(failed.attemptsMade, 1, "not retried: UnrecoverableError");
    const results = await farm.queues.results.getJobs(["waiting", "completed", "failed", "active"]);
    const errorResult = results.find((j) => j.data.jobId === "bad-1");
    assert.equal(errorResult?.data.error?.kind, "bad-job");
    assert.equal(w.exitCode, null, "worker still running");
    assert.ok(w.log.some((l) => /rejected job bad-1: FF_ERR_BAD_JOB/.test(l)), w.log.join("\n"));
  } finally {
    await killAndWait(w);
    await farm.close();
  }
});

test("a job not signed with the farm's key is never run: unsigned, tampered, or signed with another key", async () => {
  const farm = await testFarm();
  const w = spawnWorker(farm.env);
  const out = join(tmpdir(), `ff-forged-${process.pid}-${Date.now()}`);
  try {
    // A well-formed job whose target would write a file if it ran.
    const target = join(tmpdir(), `ff-forged-target-${process.pid}.js`);
    writeFileSync(target, `require("fs").writeFileSync(${JSON.stringify(out)}, "ran"); module.exports.fuzz = () => {};\n`);
    const job = { jobId: "forged-1", campaignId: "c-forged", engine: "input", kind: "fuzz", target: { path: target, name: "t", version: "v" }, seeds: [], budget: { seconds: 1, runs: 10 }, options: {} };
    assert.equal(parseJob(job).jobId, "forged-1", "the forged job is well-formed: only its signature stops it");
    const key = farm.env.FUZZFARM_JOB_KEY!;
    const signed = signJobData(job, key);
    const cases: [string, unknown][] = [
      ["forged-1", job],
      ["forged-2", { ...signed, jobId: "forged-2" }],
      ["forged-3", signJobData({ ...job, jobId: "forged-3" }, "another-key-".padEnd(40, "x"))],
    ];
    for (const [id, data] of cases) await farm.queues.jobs.input.add("fuzz", data as never, { jobId: id });
    for (const [id] of cases) {
      await waitUntil(async () => (await farm.queues.jobs.input.getJob(id))?.failedReason !== undefined, 20_000, `${id} to be rejected`);
      const j = (await farm.queues.jobs.input.getJob(id))!;
      assert.match(j.failedReason, /^FF_ERR_BAD_JOB: (unsigned job|job signature does not match)/, `${id}: ${j.failedReason}`);
      assert.equal(j.attemptsMade, 1);
    }
    assert.equal(existsSync(out), false, "the forged target never ran");
    assert.equal(w.exitCode, null, "worker still running");
  } finally {
    await killAndWait(w);
    rmSync(out, { force: true });
    await farm.close();
  }
});

test("targets run without the farm's credentials in their environment", async () => {
  // The local worker gets the Redis URL and the job key in its environment; its targets must not.
  const farm = await testFarm({ FUZZFARM_ADMIN_TOKEN: "admin-token-0123456789abcdef" });
  try {
    const r = await runCli(["fuzz", fixture("env-probe.js"), "--time", "10s", "--workers", "1", "--job-seconds", "4", "--json"], farm.env);
    const s = JSON.parse(r.stdout || "{}");
    assert.equal(r.code, 0, `buckets: ${JSON.stringify(s.buckets?.map((b: { title: string }) => b.title))} ${r.stderr.slice(-1000)}`);
    assert.ok(s.executions > 0, `the target ran: ${r.stdout}`);
  } finally {
    await farm.close();
  }
});

test("jobs longer than the lock keep it alive: every job runs exactly once", async () => {
  const farm = await testFarm({ FUZZFARM_LOCK_MS: "1500" });
  const w = spawnWorker(farm.env);
  const coordinator = await startCoordinator({ db: farm.db, queues: farm.queues, redisUrl: farm.env.FUZZFARM_REDIS_URL!, rootDir: REPO, only: [] });
  try {
    const results: { duplicate: boolean }[] = [];
    coordinator.on("result", (r: { duplicate: boolean }) => results.push(r));
    const c = await coordinator.createCampaign({ target: { name: "quiet", path: fixture("quiet.js") }, engine: "input", seconds: 9, jobSeconds: 4 });
    assert.equal(await coordinator.waitForCampaign(c.id), "completed");
    assert.ok(results.length >= 2, `${results.length} results`);
    assert.deepEqual(results.filter((r) => r.duplicate), [], "no job was handed out twice");
    const completed = await farm.queues.jobs.input.getJobs(["completed"]);
    assert.ok(completed.length >= 2 && completed.every((j) => j.attemptsMade <= 1 && !j.stalledCounter), "no stalled jobs");
  } finally {
    await coordinator.stop();
    await killAndWait(w);
    await farm.close();
  }
});

test("a worker proves its engines at start-up and advertises those that passed", async () => {
  const farm = await testFarm({ FUZZFARM_SKIP_SELFTEST: "0", FUZZFARM_ENGINES: "input" });
  const w = spawnWorker(farm.env);
  try {
    let engines: string[] = [];
    await waitUntil(async () => {
      const beats = await readHeartbeats(farm.queues.connection, farm.prefix);
      engines = beats[0]?.engines ?? [];
      return beats.length === 1;
    }, 60_000, "the worker's first heartbeat");
    assert.deepEqual(engines, ["input"]);
    // the first heartbeat goes out before the worker has set up its queues and printed its ready line
    await waitUntil(async () => w.log.some((l) => /ready: engines/.test(l)), 60_000, "the worker's ready line");
    assert.ok(w.log.some((l) => /ready: engines input/.test(l)), w.log.join("\n"));
  } finally {
    await killAndWait(w);
    await farm.close();
  }
});
