// Results are data, never commands, against a real coordinator (real
// PostgreSQL and Redis; results put on the results queue raw, as anyone with
// the worker's Redis user can): a forged finding carrying
// reproducer.options.optimizerCmd is refused, its job marked failed, and no
// replay job carries the command; a 20 MB coverage map is refused before it is
// parsed; a legitimate finding gets a replay job built from the campaign's own
// stored options.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { createTestDb, type TestDb } from "@fuzzfarm/db/testing";
import { insertJobs } from "@fuzzfarm/db";
import { openQueues, type FarmQueues } from "@fuzzfarm/queue";
import { parseJob, type JobPayload } from "@fuzzfarm/protocol";
import { startCoordinator, type Coordinator } from "@fuzzfarm/coordinator";

const REDIS_URL = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";
const REPO = fileURLToPath(new URL("../../..", import.meta.url));

let db: TestDb;
let queues: FarmQueues;
let coordinator: Coordinator;
const logged: { msg?: string }[] = [];

before(async () => {
  db = await createTestDb();
  queues = openQueues({ url: REDIS_URL, prefix: `ffdata-${randomBytes(4).toString("hex")}`, jobKey: randomBytes(32).toString("base64url") });
  coordinator = await startCoordinator({ db, queues, redisUrl: REDIS_URL, rootDir: REPO, only: [], tickMs: 100, logger: pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line)) }) });
  jobs = await wasmJobs();
});

after(async () => {
  await coordinator.stop();
  const keys = await queues.connection.keys(`${queues.prefix}:*`);
  if (keys.length) await queues.connection.del(...keys);
  await queues.close();
  await db.close();
});

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let jobs: JobPayload[] = [];
async function wasmJobs(): Promise<JobPayload[]> {
  const { id } = await coordinator.createCampaign({ target: { name: "small", path: "small" }, engine: "wasm", seconds: 600, jobSeconds: 1 });
  // Rows as the planner writes them (no worker is live here, so the supervisor plans none itself).
  const payloads = [0, 1, 2, 3].map((i) =>
    parseJob({ engine: "wasm", jobId: `${id}-t${i}`, campaignId: id, target: { name: "small", path: "small" }, budget: { runs: 1, seconds: 1 }, options: {} }),
  );
  await insertJobs(db, payloads.map((p) => ({ id: p.jobId, campaignId: id, kind: "fuzz", payload: p })));
  return payloads;
}

/** A result as a worker would send it, put on the queue as it is (no schema on the way). */
const send = (job: JobPayload, extra: object) => {
  const now = new Date().toISOString();
  return queues.results.add("result", { jobId: job.jobId, campaignId: job.campaignId, engine: job.engine, workerId: "w", execs: 1, busyMs: 1, startedAt: now, finishedAt: now, ...extra } as never, { jobId: `r-${job.jobId}` });
};
const row = (id: string) => db.prisma.job.findUniqueOrThrow({ where: { id } });
const oracle = (reproducer: object) => ({ kind: "oracle", oracle: "result", message: `bad result ${randomBytes(3).toString("hex")}`, stack: "", detail: {}, reproducer });

test("a forged finding with reproducer.options.optimizerCmd: refused, its job failed, no replay job carries the command", async () => {
  const job = jobs[0]!;
  await send(job, { findings: [oracle({ engine: "wasm", seed: 1, options: { optimizerCmd: "touch /tmp/ff-pwned" } })] });
  const failed = await waitFor("the job marked failed", async () => ((await row(job.jobId)).status === "failed" ? row(job.jobId) : null));
  assert.match(failed.error ?? "", /^result refused: FF_ERR_BAD_JOB: malformed job result: findings\.0\.reproducer\.options: Unrecognized key: "optimizerCmd"/);
  assert.ok(logged.some((l) => /^refused result r-/.test(l.msg ?? "")), "one error line logged");
  await new Promise((r) => setTimeout(r, 500));
  const all = await db.prisma.job.findMany();
  assert.deepEqual(all.filter((j) => JSON.stringify(j.payload).includes("ff-pwned")).map((j) => j.id), [], "no job carries the command");
  assert.equal(await db.prisma.crashBucket.count(), 0, "nothing of the forged result was applied");
});

test("a result naming a bucket, or another kind than its job's, is refused", async () => {
  const job = jobs[1]!;
  await send(job, { kind: "replay", bucketId: "b_someone_elses" });
  const failed = await waitFor("the job marked failed", async () => ((await row(job.jobId)).status === "failed" ? row(job.jobId) : null));
  assert.match(failed.error ?? "", /bucketId/);
});

test("a 20 MB coverage map: refused before it is parsed, the job failed with the reason", async () => {
  const job = jobs[2]!;
  await send(job, { coverage: { "/t.js": { path: "/t.js", s: { big: "x".repeat(20 * 1024 * 1024) } } } });
  const failed = await waitFor("the job marked failed", async () => ((await row(job.jobId)).status === "failed" ? row(job.jobId) : null));
  assert.match(failed.error ?? "", /^result refused: FF_ERR_ARTIFACT_TOO_LARGE: the result of job .* is 21\.0 MB, over the 16\.8 MB a result may carry/);
  assert.equal((await db.prisma.campaign.findUniqueOrThrow({ where: { id: job.campaignId } })).coverageMap, null);
});

test("a legitimate finding is applied; its replay job runs the campaign's stored options and the reported run", async () => {
  const job = jobs[3]!;
  await send(job, { findings: [oracle({ engine: "wasm", seed: 5, options: { strategy: "race", tier: "default", scheduleSeed: 2 }, trace: { wat: "(module)" } })] });
  const replay = await waitFor("the replay job", async () => db.prisma.job.findFirst({ where: { kind: "replay", campaignId: job.campaignId } }));
  const p = parseJob(replay.payload);
  assert.equal(p.kind === "replay" && p.reproducer.engine === "wasm" && p.reproducer.seed, 5);
  assert.deepEqual(p.kind === "replay" && p.reproducer.engine === "wasm" && [p.reproducer.options.optimizerCmd, p.reproducer.options.optimizer, p.reproducer.options.runsPerProgram], [null, null, 20]);
  assert.equal((await row(job.jobId)).status, "done");
});
