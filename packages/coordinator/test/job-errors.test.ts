// Job errors handled by kind in one place: the handler table refuses a second
// handler for a kind; against a real coordinator (real PostgreSQL and Redis,
// results sent through the results queue exactly as a worker sends them), a
// target error ends the campaign "failed" at once with the error as its
// reason, an infrastructure error runs the job's payload again under a new id
// (twice, then it is only recorded), and bad jobs fail the campaign once every
// finished job was rejected.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { createTestDb, type TestDb } from "@fuzzfarm/db/testing";
import { campaignFailureReason, campaignStatus, jobPayload, openJobs } from "@fuzzfarm/db";
import { openQueues, publishResult, SIGNATURE_FIELD, type FarmQueues } from "@fuzzfarm/queue";
import { FuzzFarmError, parseJob, parseResult, type JobError, type JobPayload } from "@fuzzfarm/protocol";
import { defaultJobErrorHandlers, JobErrorHandlers, startCoordinator, type Coordinator, type JobErrorContext } from "@fuzzfarm/coordinator";

const REDIS_URL = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";
const REPO = fileURLToPath(new URL("../../..", import.meta.url));
const TARGET = fileURLToPath(new URL("../../../apps/cli/test/fixtures/quiet.js", import.meta.url));

let db: TestDb;
let queues: FarmQueues;
let coordinator: Coordinator;
const ended: [string, string][] = [];
/** The coordinator's log events (pino JSON lines, parsed). */
const logged: Record<string, unknown>[] = [];

before(async () => {
  db = await createTestDb();
  queues = openQueues({ url: REDIS_URL, prefix: `ffjerr-${randomBytes(4).toString("hex")}`, jobKey: randomBytes(32).toString("base64url") });
  coordinator = await startCoordinator({ db, queues, redisUrl: REDIS_URL, rootDir: REPO, only: [], tickMs: 100, logger: pino({ level: "info" }, { write: (line: string) => void logged.push(JSON.parse(line)) }), maintenance: { replayRuns: 0 }, jobErrorPolicy: { retries: 2, rejectedToFail: 2 } });
  coordinator.on("campaignEnded", (id, status) => ended.push([id, status]));
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

/** A campaign long enough never to reach its deadline in a test, and its first planned jobs. */
async function campaignWithJobs(): Promise<{ id: string; jobs: JobPayload[] }> {
  const { id } = await coordinator.createCampaign({ target: { name: "quiet", path: TARGET }, engine: "input", seconds: 600, jobSeconds: 1 });
  const rows = await waitFor("the supervisor to plan jobs", async () => {
    const open = await openJobs(db, id);
    return open.length >= 2 && open;
  });
  return { id, jobs: rows.map((r) => parseJob(r.payload)) };
}

/** Send a job's result with an error through the results queue, as a worker does when it cannot run the job. */
async function reportError(job: JobPayload, error: JobError): Promise<void> {
  const now = new Date().toISOString();
  await publishResult(queues, parseResult({ jobId: job.jobId, campaignId: job.campaignId, engine: job.engine, workerId: "test-worker", execs: 0, busyMs: 1, startedAt: now, finishedAt: now, error }));
}

/** Resolves once the coordinator applied the result of `jobId`. */
const applied = (jobId: string) =>
  new Promise<void>((resolve) => {
    const on = (r: { jobId: string }) => {
      if (r.jobId !== jobId) return;
      coordinator.off("result", on);
      resolve();
    };
    coordinator.on("result", on);
  });

test("the handler table refuses a second handler for a kind, and the defaults cover every kind", async () => {
  const table = new JobErrorHandlers().register("internal", () => ({ action: "retry" }));
  assert.throws(
    () => table.register("internal", () => ({ action: "record" })),
    (e: unknown) => e instanceof FuzzFarmError && e.code === "FF_ERR_CONFLICT" && /"internal" already has a handler/.test(e.message),
  );
  assert.throws(() => table.register("no-such-kind" as never, () => ({ action: "record" })), /no job error kind "no-such-kind"/);
  const defaults = defaultJobErrorHandlers();
  assert.throws(() => defaults.register("target-invalid", () => ({ action: "record" })), /already has a handler/);
  const ctx = (kind: JobError["kind"], attempt = 0, finished = { clean: 0, failed: 1 }): JobErrorContext => ({
    error: { kind, message: "m" },
    jobId: "j",
    campaignId: "c",
    workerId: "w",
    attempt,
    finished: async () => finished,
  });
  assert.deepEqual(await defaults.decide(ctx("target-not-found")), { action: "fail-campaign", reason: "the target cannot be fuzzed: target-not-found: m" });
  assert.equal((await defaults.decide(ctx("target-invalid"))).action, "fail-campaign");
  assert.equal((await defaults.decide(ctx("internal", 0))).action, "retry");
  assert.equal((await defaults.decide(ctx("engine-unavailable", 1))).action, "retry");
  assert.equal((await defaults.decide(ctx("internal", 2))).action, "record", "two retries, then recorded");
  assert.equal((await defaults.decide(ctx("bad-job", 0, { clean: 0, failed: 2 }))).action, "record", "fewer than 3 rejected");
  assert.equal((await defaults.decide(ctx("bad-job", 0, { clean: 0, failed: 3 }))).action, "fail-campaign");
  assert.equal((await defaults.decide(ctx("bad-job", 0, { clean: 1, failed: 5 }))).action, "record", "a job ran: not every job is rejected");
});

test("a target error ends the campaign failed at once, with the error as its reason; queued jobs are cancelled", async () => {
  const { id, jobs } = await campaignWithJobs();
  const t0 = Date.now();
  await reportError(jobs[0]!, { kind: "target-invalid", message: "SyntaxError: Unexpected token '}'" });
  assert.equal(await coordinator.waitForCampaign(id), "failed");
  assert.ok(Date.now() - t0 < 15_000, "ended by the error, not by its 600 s deadline");
  assert.equal(await campaignFailureReason(db, id), "1 of 1 jobs failed: target-invalid: SyntaxError: Unexpected token '}'");
  assert.deepEqual(ended.filter(([c]) => c === id), [[id, "failed"]], "one campaignEnded event");
  // The other planned job was waiting in the queue: it is cancelled and no longer handed out.
  const other = jobs[1]!;
  assert.equal(await queues.jobs.input.getJob(other.jobId), undefined, "removed from the queue");
  assert.deepEqual(await openJobs(db, id), [], "no job of the campaign is left queued");
  // Structured logs: one event each, with a level and the ids it concerns.
  const jobEvent = logged.find((e) => e.jobId === jobs[0]!.jobId);
  assert.ok(jobEvent, JSON.stringify(logged));
  assert.equal(jobEvent.level, 40, "a job error is a warning");
  assert.deepEqual([jobEvent.campaignId, jobEvent.workerId, jobEvent.decision], [id, "test-worker", "fail-campaign"]);
  assert.match(String(jobEvent.msg), /failed on test-worker: target-invalid: SyntaxError/);
  const endEvent = logged.find((e) => e.campaignId === id && e.status === "failed");
  assert.ok(endEvent && /^campaign \S+ failed: the target cannot be fuzzed: target-invalid/.test(String(endEvent.msg)), JSON.stringify(endEvent));
});

test("an infrastructure error runs the job's payload again under a new id, twice; then it is recorded", async () => {
  const { id, jobs } = await campaignWithJobs();
  let job = jobs[0]!;
  for (const attempt of [1, 2]) {
    await reportError(job, { kind: "internal", message: "worker ran out of memory" });
    const retryId = `${jobs[0]!.jobId}-retry${attempt}`;
    const payload = await waitFor(`retry ${attempt}`, () => jobPayload(db, retryId));
    assert.deepEqual({ ...parseJob(payload), jobId: jobs[0]!.jobId }, jobs[0], "the same payload under a new id");
    const queued = await queues.jobs.input.getJob(retryId);
    assert.ok(queued, `${retryId} is in the queue`);
    const { [SIGNATURE_FIELD]: sig, ...data } = queued.data as JobPayload & { sig: string };
    assert.ok(sig, "signed with the farm's key");
    assert.deepEqual(parseJob(data), parseJob(payload));
    job = parseJob(payload);
  }
  const done = applied(job.jobId);
  await reportError(job, { kind: "engine-unavailable", message: "no wasm engine on this worker" });
  await done;
  assert.equal(await jobPayload(db, `${jobs[0]!.jobId}-retry3`), null, "no third retry");
  assert.equal(await campaignStatus(db, id), "running", "infrastructure errors do not end the campaign");
  await coordinator.stopCampaign(id);
});

test("bad jobs: recorded while some finished job was not rejected; the campaign fails once all finished jobs were (policy: 2)", async () => {
  const { id, jobs } = await campaignWithJobs();
  const first = applied(jobs[0]!.jobId);
  await reportError(jobs[0]!, { kind: "bad-job", message: "options.timeoutMs: expected number" });
  await first;
  assert.equal(await campaignStatus(db, id), "running", "one rejected job is not every job");
  await reportError(jobs[1]!, { kind: "bad-job", message: "options.timeoutMs: expected number" });
  assert.equal(await coordinator.waitForCampaign(id), "failed");
  assert.equal(await campaignFailureReason(db, id), "2 of 2 jobs failed: bad-job: options.timeoutMs: expected number");
});
