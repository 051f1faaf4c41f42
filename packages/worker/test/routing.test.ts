// Jobs routed by engine capability, with two real workers on real Redis:
// one offers Deno (the pinned npm binary), the other was configured without
// Deno and Bun. Wasm jobs that name deno are queued on `jobs-wasm@deno`
// (enqueueJob, as the coordinator does), which only the first consumes:
// every one of them runs there, none is refused, while plain wasm jobs go to
// both. A campaign naming an engine no live worker offers is refused up
// front with one line (assertEngineServed, what the coordinator calls).
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { JobResult, type JobPayload } from "@fuzzfarm/protocol";
import { assertEngineServed, connect, enqueueJob, jobRoute, openQueues, queueOf, readHeartbeats, type FarmQueues } from "@fuzzfarm/queue";
import { createWasmEngine } from "@fuzzfarm/engine-wasm";
import { startWorker } from "../src/index";

const REDIS = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";
const KEY = randomBytes(32).toString("base64url");
const prefix = `ff-routing-${process.pid}`;

const job = (id: string, engines: string[]): JobPayload =>
  ({ jobId: id, campaignId: "c-routing", engine: "wasm", kind: "fuzz", target: { name: "t", path: "small", version: "v" }, budget: { runs: 6, seconds: 20 }, seeds: [], options: { strategy: "token", runsPerProgram: 2, engines } }) as unknown as JobPayload;

async function resultOf(q: FarmQueues, jobId: string): Promise<JobResult> {
  for (let i = 0; i < 1200; i++) {
    const r = await q.results.getJob(`r-${jobId}`);
    if (r) return JobResult.parse(r.data);
    await sleep(100);
  }
  throw new Error(`no result for ${jobId}`);
}

test("routes: which jobs leave the engine's queue", () => {
  assert.equal(jobRoute(job("a", [])), null);
  assert.equal(jobRoute(job("a", ["liftoff", "turbofan:x", "default"])), null, "this Node's tiers are on every worker");
  assert.equal(jobRoute(job("a", ["deno:liftoff"])), "deno");
  assert.equal(jobRoute(job("a", ["deno", "bun:jit", "liftoff", "deno:turbofan"])), "bun+deno");
  assert.equal(jobRoute({ engine: "node", options: { engines: ["deno"] } }), null);
});

test("wasm jobs naming deno run only on the worker that offers it; none is refused; a campaign no live worker can serve is refused", async () => {
  const logs: Record<string, string[]> = { deno: [], plain: [] };
  const q = openQueues({ url: REDIS, prefix, jobKey: KEY });
  const common = { redisUrl: REDIS, jobKey: KEY, prefix, skipSelfTest: true, sandbox: "none" as const, heartbeatMs: 300 };
  // Only the plain worker at first: a deno campaign is refused before anything is queued.
  const plain = await startWorker({ ...common, engines: [createWasmEngine({ denoPath: null, bunPath: null })], log: (l) => logs.plain!.push(l) });
  let deno: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    await assert.rejects(assertEngineServed(q.connection, prefix, "wasm", { engines: ["deno"] }), (e: { code?: string; message: string }) => {
      assert.equal(e.code, "FF_ERR_ENGINE_UNAVAILABLE");
      assert.match(e.message, /^no live worker offers wasm engine deno \(live wasm workers offer: default, liftoff, turbofan\); /);
      assert.ok(!e.message.includes("\n"));
      return true;
    });
    await assert.rejects(assertEngineServed(q.connection, prefix, "wasm", { engineMatrix: ["liftoff", "bun:jit"] }), /wasm engine bun /);
    await assertEngineServed(q.connection, prefix, "wasm", { engines: ["liftoff"] });
    await assertEngineServed(q.connection, prefix, "node", { engines: ["deno"] });

    deno = await startWorker({ ...common, engines: [createWasmEngine({})], log: (l) => logs.deno!.push(l) });
    const beats = await readHeartbeats(q.connection, prefix);
    assert.ok(beats.find((b) => b.id === deno!.id)?.capabilities?.wasm?.includes("deno"));
    assert.ok(!beats.find((b) => b.id === plain.id)?.capabilities?.wasm?.includes("deno"));
    await assertEngineServed(q.connection, prefix, "wasm", { engines: ["deno:liftoff"] });
    await assertEngineServed(q.connection, prefix, "wasm", { engineMatrix: ["deno", "liftoff"] });
    await assertEngineServed(q.connection, prefix, "wasm", { engines: ["deno", "bun"] });
    await assert.rejects(assertEngineServed(q.connection, prefix, "wasm", { engines: ["deno", "mine"] }), /no live worker offers wasm engine deno and mine \(live wasm workers offer: bun, default, deno, liftoff, turbofan\)/);

    // Deno jobs and plain ones together: the plain worker is idle whenever the deno worker is busy.
    const denoJobs = Array.from({ length: 6 }, (_, i) => job(`deno-${process.pid}-${i}`, [i % 2 ? "deno" : "deno:liftoff"]));
    const plainJobs = Array.from({ length: 6 }, (_, i) => job(`plain-${process.pid}-${i}`, []));
    for (const j of [...denoJobs, ...plainJobs]) await enqueueJob(q, j);
    const results = await Promise.all([...denoJobs, ...plainJobs].map((j) => resultOf(q, j.jobId)));
    for (const r of results) assert.equal(r.error, undefined, `${r.jobId} on ${r.workerId}: ${JSON.stringify(r.error)}`);
    for (const r of results.slice(0, 6)) {
      assert.equal(r.workerId, deno!.id, `${r.jobId} ran on ${r.workerId}`);
      assert.ok(Object.keys(r.strategyYield).some((k) => /^engine:deno/.test(k)), `${r.jobId} compared Deno: ${JSON.stringify(r.strategyYield)}`);
    }
    assert.ok(results.slice(6).some((r) => r.workerId === plain.id), "the plain worker ran plain jobs (it was consuming all along)");
    assert.ok(logs.deno!.some((l) => l === "consuming jobs-wasm@deno"), logs.deno!.join("\n"));
    assert.equal(queueOf(q, denoJobs[0]!).name, "jobs-wasm@deno");
    assert.ok(!logs.plain!.some((l) => /consuming|rejected/.test(l)), logs.plain!.join("\n"));
  } finally {
    await deno?.stop();
    await plain.stop();
    await q.close();
  }
});

test.after(async () => {
  const redis = connect(REDIS);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});
