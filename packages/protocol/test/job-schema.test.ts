// The job path's schemas: payloads and results discriminated by engine and
// kind, each engine's options / seed strategy / reproducer typed (switches as
// booleans), and the campaign configuration checked by the engine's schema.
// Each case fails if the schema stopped checking what it names.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  FuzzFarmError, JobPayload, JobResult, NodeOptions, Reproducer, WasmOptions, parseCampaignConfig, parseJob, parseResult, readCampaignConfig,
} from "../src/index";

const target = { name: "t", path: "/srv/t.js" };
const budget = { runs: 10, seconds: 5 };
const rule = { rootDir: "/srv", bucket: { id: "b1", kind: "uncaught", signature: "s", frames: [], normalizedMessage: "boom" } };
const nodeRepro = { engine: "node", seed: 3, options: { strategy: "pct", params: { depth: 3 } }, trace: { events: [{ id: "e1", seq: 1, held: true, t: 4 }], holdSet: null } };

test("payloads: fuzz by default; replay and minimize need their bucket and a reproducer of the job's engine; minimize needs the rule", () => {
  const fuzz = parseJob({ engine: "node", jobId: "j", campaignId: "c", target, budget, options: {} });
  assert.equal(fuzz.kind, "fuzz");
  const replay = parseJob({ engine: "node", kind: "replay", jobId: "j", campaignId: "c", target, budget, options: {}, bucketId: "b1", reproducer: nodeRepro });
  assert.equal(replay.kind === "replay" && replay.reproducer.engine, "node");
  assert.equal(replay.kind === "replay" && replay.reproducer.engine === "node" && replay.reproducer.trace?.events[0]?.held, true);
  assert.throws(() => parseJob({ engine: "node", kind: "replay", jobId: "j", campaignId: "c", target, budget, options: {}, reproducer: nodeRepro }), /malformed job payload: bucketId/);
  assert.throws(() => parseJob({ engine: "node", kind: "replay", jobId: "j", campaignId: "c", target, budget, options: {}, bucketId: "b1" }), /malformed job payload: reproducer/);
  // a wasm reproducer in a node job
  assert.throws(() => parseJob({ engine: "node", kind: "replay", jobId: "j", campaignId: "c", target, budget, options: {}, bucketId: "b1", reproducer: { engine: "wasm" } }), /reproducer/);
  assert.throws(() => parseJob({ engine: "node", kind: "minimize", jobId: "j", campaignId: "c", target, budget, options: {}, bucketId: "b1", reproducer: nodeRepro }), /sameBug/);
  const min = parseJob({ engine: "node", kind: "minimize", jobId: "j", campaignId: "c", target, budget, options: {}, bucketId: "b1", reproducer: nodeRepro, sameBug: rule });
  assert.equal(min.kind === "minimize" && min.sameBug.bucket.id, "b1");
  assert.throws(() => parseJob({ engine: "node", kind: "explore", jobId: "j", campaignId: "c", target, budget, options: {} }), FuzzFarmError);
});

test("node options: engine switches are booleans and options of their own, not 0/1 strategy parameters", () => {
  const o = NodeOptions.parse({ warm: false, coverage: false, jobs: 2, confirmRuns: 1 });
  assert.deepEqual([o.warm, o.coverage, o.jobs, o.confirmRuns], [false, false, 2, 1]);
  assert.deepEqual([NodeOptions.parse({}).warm, NodeOptions.parse({}).coverage, NodeOptions.parse({}).jobs], [true, true, undefined]);
  assert.equal(NodeOptions.safeParse({ warm: 0 }).success, false);
  const r = NodeOptions.safeParse({ params: { warm: 0 } });
  assert.equal(r.success, false);
  assert.match(r.error!.issues[0]!.message, /options of their own/);
  assert.equal(NodeOptions.safeParse({ strategy: "nonsense" }).success, false);
  // seeds record a strategy a job may name
  assert.throws(() => parseJob({ engine: "node", jobId: "j", campaignId: "c", target, budget, options: {}, seeds: [{ data: "", strategy: { strategy: "bogus", seed: 1 } }] }), /seeds\.0\.strategy/);
});

test("wasm options: generator fields and bounds, runner strategies (pct:D), fault kinds", () => {
  assert.equal(WasmOptions.parse({ strategy: "pct:4" }).strategy, "pct:4");
  assert.equal(WasmOptions.safeParse({ strategy: "bogus" }).success, false);
  assert.equal(WasmOptions.safeParse({ generator: { threads: 9 } }).success, false);
  assert.equal(WasmOptions.safeParse({ generator: { thread: 2 } }).success, false, "a misspelt generator field is refused");
  assert.equal(WasmOptions.safeParse({ generator: { locks: 1 } }).success, false);
  assert.deepEqual(WasmOptions.parse({ generator: { threads: 2, locks: false } }).generator, { threads: 2, locks: false });
});

test("reproducers: one shape per engine", () => {
  assert.equal(Reproducer.parse(nodeRepro).engine, "node");
  assert.equal(Reproducer.safeParse({ ...nodeRepro, trace: { events: [{ id: "e1", seq: 1, held: "yes", t: 4 }] } }).success, false);
  assert.equal(Reproducer.safeParse({ engine: "input", options: { timeoutMs: "slow" } }).success, false);
  const w = Reproducer.parse({ engine: "wasm", seed: 1, options: { strategy: "token", tier: "liftoff", opt: "O2" }, trace: { program: { threads: [] }, spec: { mode: 1, seed: 2, strategy: "token" } } });
  assert.equal(w.engine === "wasm" && w.trace?.spec?.mode, 1);
  assert.equal(Reproducer.safeParse({ engine: "wasm", options: { opt: "O9" } }).success, false);
});

test("results: no result names a bucket (the job row does); only minimize results carry a minimized reproducer", () => {
  const base = { jobId: "j", campaignId: "c", workerId: "w", engine: "node", execs: 3, busyMs: 1, startedAt: "a", finishedAt: "b" };
  assert.equal(parseResult(base).kind, "fuzz");
  assert.equal(parseResult({ ...base, kind: "replay" }).kind, "replay");
  assert.throws(() => parseResult({ ...base, kind: "replay", bucketId: "b1" }), /malformed job result: .*bucketId/);
  const minimized = { reproducer: nodeRepro, explanation: "x", originalSize: 3, size: 1, tries: 5 };
  const m = parseResult({ ...base, kind: "minimize", minimized });
  assert.equal(m.kind === "minimize" && m.minimized?.size, 1);
  assert.throws(() => parseResult({ ...base, minimized }), /malformed job result/, "a fuzz result may not carry one");
  // corpus candidates record the engine's strategy
  assert.throws(() => parseResult({ ...base, corpus: [{ data: "", features: [], strategy: { strategy: "bogus", seed: 1 } }] }), /corpus/);
  assert.equal(JobResult.safeParse({ ...base, engine: "perl" }).success, false);
  assert.equal(JobPayload.safeParse({ engine: "perl" }).success, false);
});

test("campaign configuration: options checked by the engine's schema when created, defaults stored, read back through the schema", () => {
  const c = parseCampaignConfig({ engine: "node", options: { timeoutMs: 500, warm: false }, jobSeconds: 5 });
  assert.equal(c.engine === "node" && c.options.timeoutMs, 500);
  assert.equal(c.engine === "node" && c.options.strategy, "mix", "defaults are stored");
  assert.deepEqual(readCampaignConfig(JSON.parse(JSON.stringify(c)), "c1"), c);
  assert.throws(() => parseCampaignConfig({ engine: "node", options: { timeoutMs: "abc" }, jobSeconds: 5 }), (e: unknown) =>
    e instanceof FuzzFarmError && e.code === "FF_ERR_CONFIG" && /^node engine: bad option timeoutMs: /.test(e.message) && !e.message.includes("\n"));
  assert.throws(() => parseCampaignConfig({ engine: "wasm", options: { generator: { threads: 99 } }, jobSeconds: 5 }), /wasm engine: bad option generator\.threads/);
  assert.throws(() => parseCampaignConfig({ engine: "perl", options: {}, jobSeconds: 5 }), /unknown engine "perl"/);
  assert.throws(() => readCampaignConfig({ engine: "node", options: { timeoutMs: "abc" } }, "c1"), (e: unknown) => e instanceof FuzzFarmError && e.code === "FF_ERR_INTERNAL" && /campaign c1/.test(e.message));
});
