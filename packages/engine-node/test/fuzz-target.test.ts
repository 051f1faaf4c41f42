// A `fuzz(data)` target under the node engine: its input is mutated while
// its async work is perturbed; the finding carries both, and replays.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseJob, NodeReproducer } from "@fuzzfarm/protocol";
import { nodeEngine } from "@fuzzfarm/engine-node";

const EX = fileURLToPath(new URL("../../../examples/node-fuzz/", import.meta.url));

function job(path: string, runs: number) {
  return parseJob({
    engine: "node", jobId: "j1", campaignId: "c1", target: { name: "counter-store", path }, budget: { runs, seconds: 90 },
    options: { strategy: "delay", jobs: 2, seedStart: 11 },
  });
}

test("input and schedule fuzzed together find the lost update, and its reproducer replays it", async () => {
  const workDir = mkdtempSync(join(tmpdir(), "ffnf-"));
  const ctx = { signal: new AbortController().signal, workDir };
  const r = await nodeEngine.run(job(join(EX, "counter-store.mjs"), 80) as never, ctx);
  assert.equal(r.error, undefined);
  const f = (r.findings ?? []).find((x) => x.message.includes("lost update"));
  assert.ok(f, `no lost update in ${r.execs} runs: ${JSON.stringify((r.findings ?? []).map((x) => x.message))}`);
  const input = Buffer.from(NodeReproducer.parse(f!.reproducer).input!, "base64");
  assert.ok([...input.subarray(0, 4)].filter((b) => b % 2 === 1).length >= 2, "the input is one that starts concurrent increments");
  assert.ok((r.corpus ?? []).some((c) => typeof (c.strategy as { input?: string }).input === "string"), "inputs that brought coverage join the corpus");
  let hits = 0;
  for (let i = 0; i < 5; i++) {
    const o = await nodeEngine.reproduce({ path: join(EX, "counter-store.mjs") }, NodeReproducer.parse(f!.reproducer), ctx);
    if (o.kind !== "ok" && o.message.includes("lost update")) hits++;
  }
  assert.ok(hits >= 4, `replayed ${hits}/5`);
});

test("the fixed twin never fails under the same fuzzing", async () => {
  const workDir = mkdtempSync(join(tmpdir(), "ffnf-"));
  const r = await nodeEngine.run(job(join(EX, "counter-store.fixed.mjs"), 40) as never, { signal: new AbortController().signal, workDir });
  assert.equal(r.error, undefined);
  assert.deepEqual((r.findings ?? []).map((f) => f.message), []);
  assert.ok(r.execs >= 40);
});
