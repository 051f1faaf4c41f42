// The node engine picks the "guided" strategy itself (it reverses a racing
// pair of its observation run), so corpus entries name it. The planner
// continues such an entry with its pair as it is (its params are site hashes,
// not numbers to nudge), and the schema refuses "guided" without a pair.
// packages/engine-node/test/guided-replay.test.ts checks the replay side.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRng } from "@fuzzfarm/rng";
import { parseJob } from "@fuzzfarm/protocol";
import { PLANNERS } from "../src/index";

const target = { name: "cache-invalidation", path: "examples/node-races/cache-invalidation.js", version: "v" };

test("the node planner continues a guided corpus entry with its pair unchanged; guided without a pair is refused", () => {
  const entry = { id: "e1", data: new Uint8Array(), strategy: { strategy: "guided", params: { guideA: 123456789, guideB: 987654321, events: 14 } }, execTimeUs: 1000, newFeatures: 5, timesChosen: 0, timesProductive: 1, addedAt: 0 };
  let continued = 0;
  const rng = createRng(7);
  for (let i = 0; i < 20; i++) {
    const plan = PLANNERS.node({ jobId: `j${i}`, campaignId: "c", target, config: { engine: "node", options: {}, jobSeconds: 10 }, corpus: [entry], rng, now: 0 });
    const job = parseJob(plan.payload);
    const o = job.options as { strategy: string; params: Record<string, number> };
    if (o.strategy !== "guided") continue;
    continued++;
    assert.equal(o.params.guideA, 123456789);
    assert.equal(o.params.guideB, 987654321);
  }
  assert.ok(continued > 0, "some jobs continue the entry");
  assert.throws(
    () => parseJob({ engine: "node", jobId: "j", campaignId: "c", kind: "fuzz", target, budget: { runs: 1, seconds: 1 }, seeds: [], options: { strategy: "guided" } }),
    /guided needs params guideA and guideB/,
  );
});
