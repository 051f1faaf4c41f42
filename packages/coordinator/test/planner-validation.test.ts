// What the planners hand to the queue is a parsed job payload: a payload the
// protocol's schema refuses is an error at the coordinator, before anything is
// enqueued, not a job every worker rejects. Stored corpus strategies are read
// through the engine's seed-strategy schema, and nudged generator
// configurations stay within the generator's bounds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRng } from "@fuzzfarm/rng";
import { FuzzFarmError, WASM_GENERATOR_LIMITS } from "@fuzzfarm/protocol";
import { PLANNERS, validateCampaignConfig } from "../src/index";

const target = { name: "t", path: "/srv/t.js", version: "v" };
const entry = (strategy: unknown) => ({ id: "e1", data: new Uint8Array(), strategy, execTimeUs: 1000, newFeatures: 5, timesChosen: 0, timesProductive: 1, addedAt: 0 });

test("a planned payload that does not fit the job schema throws FF_ERR_BAD_JOB at the planner", () => {
  for (const [engine, options] of [["node", { timeoutMs: "abc" }], ["input", { maxLen: -1 }], ["wasm", { strategy: "bogus" }]] as const) {
    assert.throws(
      () => PLANNERS[engine]({ jobId: "j", campaignId: "c", target, config: { engine, options, jobSeconds: 5 } as never, corpus: [], rng: createRng(1), now: 0 }),
      (e: unknown) => e instanceof FuzzFarmError && e.code === "FF_ERR_BAD_JOB",
      engine,
    );
  }
  assert.throws(() => PLANNERS.node({ jobId: "j", campaignId: "c", target, config: { engine: "wasm", options: {}, jobSeconds: 5 }, corpus: [], rng: createRng(1), now: 0 }), /node planner got a wasm campaign/);
});

test("wasm planner: nudged generator configurations are brought back within the generator's bounds", () => {
  const top = { threads: 8, depth: 4, cells: 12, stmts: 20, helpers: 6, yieldRate: 1, locks: true };
  const rng = createRng(3);
  let continued = 0;
  for (let i = 0; i < 60; i++) {
    const plan = PLANNERS.wasm({ jobId: `j${i}`, campaignId: "c", target: { ...target, path: "default" }, config: { engine: "wasm", options: {}, jobSeconds: 5 }, corpus: [entry({ generator: top, seed: 1 })], rng, now: 0 });
    assert.equal(plan.payload.engine, "wasm");
    if (plan.payload.engine !== "wasm" || !plan.chosen.length) continue;
    continued++;
    const g = plan.payload.options.generator;
    for (const [k, [lo, hi]] of Object.entries(WASM_GENERATOR_LIMITS)) {
      const v = g[k as keyof typeof WASM_GENERATOR_LIMITS];
      assert.ok(v !== undefined && v >= lo && v <= hi, `${k} = ${v}`);
    }
  }
  assert.ok(continued > 10, `${continued} jobs continued the entry`);
});

test("node planner: a stored strategy the schema does not read leaves the campaign's options", () => {
  const rng = createRng(5);
  for (let i = 0; i < 20; i++) {
    const plan = PLANNERS.node({ jobId: `j${i}`, campaignId: "c", target, config: { engine: "node", options: { strategy: "pct", params: { depth: 2 } }, jobSeconds: 5 }, corpus: [entry({ strategy: "warp-drive", seed: 1 })], rng, now: 0 });
    assert.equal(plan.payload.engine === "node" && plan.payload.options.strategy, "pct");
    assert.deepEqual(plan.payload.engine === "node" && plan.payload.options.params, { depth: 2 });
  }
});

test("validateCampaignConfig returns the configuration to store (options with defaults) and refuses a bad option in one line", () => {
  const c = validateCampaignConfig(target, { engine: "node", options: { warm: false }, jobSeconds: 5 });
  assert.equal(c.engine === "node" && c.options.warm, false);
  assert.equal(c.engine === "node" && c.options.timeoutMs, 10_000);
  assert.throws(() => validateCampaignConfig(target, { engine: "node", options: { params: { warm: 0 } }, jobSeconds: 5 }), /^FuzzFarmError: node engine: bad option params: warm, jobs, coverage, confirmRuns are options of their own/);
  assert.throws(() => validateCampaignConfig(target, { engine: "node", options: { timeoutMs: "abc" }, jobSeconds: 5 }), (e: unknown) => e instanceof FuzzFarmError && e.code === "FF_ERR_CONFIG" && /^node engine: bad option timeoutMs/.test(e.message));
});
