// The wasm planner spreads a campaign's engine x tier matrix over its jobs: each job compares the
// baseline with one configuration, every configuration gets jobs, and the payload keeps it through
// the protocol's option schema (what the worker's engine reads).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRng } from "@fuzzfarm/rng";
import { WasmOptions } from "@fuzzfarm/protocol";
import { PLANNERS } from "../src/index";

test("wasm planner: engineMatrix becomes one engine configuration per job, all covered", () => {
  const matrix = ["deno", "deno:liftoff", "bun", "bun:ipint"];
  const rng = createRng(42);
  const seen = new Map<string, number>();
  for (let i = 0; i < 80; i++) {
    const plan = PLANNERS.wasm({
      jobId: `j${i}`, campaignId: "c1", target: { name: "default", path: "default", version: "v" },
      config: { engine: "wasm", options: { engineMatrix: matrix, optimizer: null }, jobSeconds: 10, runsPerJob: 50 },
      corpus: [], rng, now: 0,
    });
    const o = WasmOptions.parse(plan.payload.options);
    assert.equal(o.engines.length, 1);
    assert.ok(matrix.includes(o.engines[0]!));
    seen.set(o.engines[0]!, (seen.get(o.engines[0]!) ?? 0) + 1);
  }
  assert.deepEqual([...seen.keys()].sort(), [...matrix].sort());
});

test("wasm planner: without a matrix the jobs compare no other engine", () => {
  const plan = PLANNERS.wasm({
    jobId: "j", campaignId: "c1", target: { name: "default", path: "default", version: "v" },
    config: { engine: "wasm", options: {}, jobSeconds: 10 }, corpus: [], rng: createRng(1), now: 0,
  });
  assert.deepEqual(WasmOptions.parse(plan.payload.options).engines, []);
});
