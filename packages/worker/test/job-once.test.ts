// A job id runs at most once (internal/job-claim.ts): a real worker runs a
// signed job, then the same signed data queued again, under a new BullMQ id or
// under its own id once the first copy is gone, is refused unrun.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type JobPayload } from "@fuzzfarm/protocol";
import { enqueueJob, openQueues, signJobData, type QueueJob } from "@fuzzfarm/queue";
import { createWasmEngine } from "@fuzzfarm/engine-wasm";
import { startWorker } from "../src/index";

const REDIS = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";
const KEY = randomBytes(32).toString("base64url");
const prefix = `ff-once-${process.pid}`;

async function failedReason(get: () => Promise<QueueJob | undefined>, what: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const j = await get();
    if (j?.failedReason) return j.failedReason;
    await sleep(100);
  }
  throw new Error(`${what} did not fail`);
}

test("a signed job re-queued under a new id, or under its own after it ran, does not run again", async () => {
  const q = openQueues({ url: REDIS, prefix, jobKey: KEY });
  const runs: string[] = [];
  const w = await startWorker({ redisUrl: REDIS, jobKey: KEY, prefix, engines: [createWasmEngine({ denoPath: null, bunPath: null })], skipSelfTest: true, sandbox: "none", log: (l) => runs.push(l) });
  try {
    const job = { jobId: "once-1", campaignId: "c-once", engine: "wasm", kind: "fuzz", target: { name: "t", path: "small", version: "v" }, budget: { runs: 2, seconds: 5 }, seeds: [], options: { strategy: "token", runsPerProgram: 1 } } as unknown as JobPayload;
    await enqueueJob(q, job);
    for (let i = 0; i < 300 && !(await q.results.getJob("r-once-1")); i++) await sleep(100);
    assert.ok(await q.results.getJob("r-once-1"), "the job ran once");
    const signed = signJobData(job, KEY);
    // the attacker's copies: the signed data, as read from Redis
    await q.jobs.wasm.add("fuzz", signed, { jobId: "once-1-again" });
    assert.match(await failedReason(() => q.jobs.wasm.getJob("once-1-again"), "the copy under a new id"), /carries the signed payload of job once-1: a signed job runs only under its own id/);
    await (await q.jobs.wasm.getJob("once-1"))?.remove();
    await q.results.remove("r-once-1");
    await q.jobs.wasm.add("fuzz", signed, { jobId: "once-1" });
    assert.match(await failedReason(() => q.jobs.wasm.getJob("once-1"), "the copy under its own id"), /job once-1 already ran \(on .*\): a job id runs once/);
    assert.equal(await q.results.getJob("r-once-1"), undefined, "no second result: it did not run");
    assert.equal(w.stats.jobsDone, 1);
  } finally {
    await w.stop();
    const keys = await q.connection.keys(`${prefix}:*`);
    if (keys.length) await q.connection.del(...keys);
    await q.close();
  }
});
