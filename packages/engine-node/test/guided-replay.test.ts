// The engine picks the "guided" strategy itself (it reverses a racing pair
// of its observation run), so findings name it. A replay job built from such
// a finding (as the coordinator's maintenance does) must pass the schema
// workers use: a bucket found by a guided run once got no replay job at all
// (its payload was refused as an unknown strategy, and the campaign waited
// out its maintenance time).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseJob, Reproducer } from "@fuzzfarm/protocol";
import { nodeEngine } from "../src/index";

const TARGET = fileURLToPath(new URL("../../../examples/node-races/cache-invalidation.js", import.meta.url));
const target = { name: "cache-invalidation", path: TARGET, version: "v" };

test("a finding of a guided run becomes a replay job the schema accepts", async () => {
  const workDir = mkdtempSync(join(tmpdir(), "ff-guided-"));
  try {
    const guided: Reproducer[] = [];
    // under strategy none only the guided runs (every 4th run) perturb anything
    for (const seedStart of [1000, 2000, 3000]) {
      const job = parseJob({ engine: "node", jobId: "j", campaignId: "c", kind: "fuzz", target, budget: { runs: 40, seconds: 30 }, seeds: [], options: { strategy: "none", seedStart } });
      const r = await nodeEngine.run(job as never, { signal: new AbortController().signal, workDir });
      assert.equal(r.error, undefined);
      for (const f of r.findings ?? []) {
        const repro = Reproducer.parse(f.reproducer);
        if ((repro.options as { strategy?: string }).strategy === "guided") guided.push(repro);
      }
      if (guided.length) break;
    }
    assert.ok(guided.length > 0, "a guided run found the race");
    for (const repro of guided) {
      const replay = parseJob({ engine: "node", kind: "replay", jobId: "replay-b", campaignId: "c", target, budget: { runs: 20, seconds: 120 }, seeds: [], options: { ...repro.options }, bucketId: "b", reproducer: repro } as never);
      assert.equal((replay.options as { strategy: string }).strategy, "guided");
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
});
