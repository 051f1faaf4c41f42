// nodeEngine as the farm uses it: self-test, a job over an example, bad
// targets as job errors, reproduce from a finding's reproducer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { EngineResult, parseJob, type JobFor } from "@fuzzfarm/protocol";
import { nodeEngine } from "../src/index";
import { EXAMPLES_DIR } from "./helpers";

const ctx = () => ({ signal: new AbortController().signal, workDir: tmpdir() });
function job(path: string, runs: number, options: Record<string, unknown> = {}): JobFor<"node"> {
  return parseJob({
    jobId: "j1", campaignId: "c1", engine: "node", target: { name: "t", path },
    options: { strategy: "mix", seedStart: 1, timeoutMs: 10_000, ...options }, budget: { runs, seconds: 120 },
  }) as JobFor<"node">;
}

test("self-test: every hook fires, the must-crash probe crashes, the must-pass probe passes", async () => {
  await nodeEngine.selfTest();
});

test("a job finds the race, confirms it by replay, reports features, corpus and coverage", async () => {
  const progress: number[] = [];
  const r = await nodeEngine.run(job(join(EXAMPLES_DIR, "stream-end-vs-error.js"), 40), { ...ctx(), onProgress: (p) => progress.push(p.execs) });
  const parsed = EngineResult.parse(r);
  assert.equal(parsed.error, undefined);
  assert.ok(parsed.execs >= 40, `${parsed.execs} execs`);
  assert.ok(progress.length >= 40);
  assert.ok(parsed.features.some((f) => f.startsWith("race:")));
  assert.ok(parsed.features.some((f) => /^cov:.*stream-end-vs-error\.js:s\d+$/.test(f)));
  assert.ok(parsed.featureTotal > 0);
  assert.ok(parsed.coverage && Object.keys(parsed.coverage).some((f) => f.endsWith("stream-end-vs-error.js")));
  assert.ok(parsed.corpus.length > 0 && typeof parsed.corpus[0]!.strategy.seed === "number");
  assert.ok(Object.keys(parsed.strategyYield).length > 0);
  const f = parsed.findings[0];
  assert.ok(f, "a finding");
  assert.equal(f.kind, "crash");
  assert.match(f.message, /EPIPE|ECONNRESET/);
  assert.equal(f.reproducer.engine, "node");
  assert.ok(Array.isArray((f.reproducer.trace as { events: unknown[] }).events));
  assert.match(String(f.detail.reproduced), /^\d\/3$/);
  assert.ok(Number(String(f.detail.reproduced).split("/")[0]) >= 2, `reproduced ${f.detail.reproduced}`);

  const again = await nodeEngine.reproduce({ path: join(EXAMPLES_DIR, "stream-end-vs-error.js") }, f.reproducer, ctx());
  assert.equal(again.kind, "crash");
});

test("a correct program yields no finding; bad targets are job errors, not exceptions", async () => {
  const ok = await nodeEngine.run(job(join(EXAMPLES_DIR, "stream-end-vs-error.fixed.js"), 15, { warm: false, jobs: 2, coverage: false }), ctx());
  assert.equal(ok.findings?.length ?? 0, 0);
  assert.equal(ok.coverage, undefined);
  const missing = await nodeEngine.run(job("/nonexistent/app.js", 5), ctx());
  assert.equal(missing.error?.kind, "target-not-found");
  const dir = mkdtempSync(join(tmpdir(), "ff-engine-"));
  writeFileSync(join(dir, "bad.cjs"), "this is not javascript(");
  const invalid = await nodeEngine.run(job(join(dir, "bad.cjs"), 5), ctx());
  assert.equal(invalid.error?.kind, "target-invalid");
  writeFileSync(join(dir, "missing-dep.cjs"), "require('no-such-package-anywhere');");
  const dep = await nodeEngine.run(job(join(dir, "missing-dep.cjs"), 5), ctx());
  assert.equal(dep.error?.kind, "target-invalid");
});
