// Node's documented ordering guarantees (fixtures/conformance.cjs checks
// them from inside a program using every perturbed source) under every
// strategy, 30 seeds each in CI (100 with FUZZFARM_FULL_EVIDENCE=1), in warm
// workers: zero violations allowed.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { execute, WarmPool, raceCandidates, guideParams } from "../src/index";
import { FIXTURES, mapLimit } from "./helpers";
import type { NodeStrategy } from "@fuzzfarm/protocol";

const SEEDS = process.env.FUZZFARM_FULL_EVIDENCE === "1" ? 100 : 30;
const pool = new WarmPool(6);
after(() => pool.close());
const script = join(FIXTURES, "conformance.cjs");

for (const strategy of ["shuffle", "delay", "demux", "pct", "horizon", "late", "mix"] as NodeStrategy[]) {
  test(`no ordering guarantee broken under ${strategy} (${SEEDS} seeds)`, async () => {
    const runs = await mapLimit(Array.from({ length: SEEDS }, (_, i) => i + 1), 6, (seed) =>
      execute({ script, args: [], strategy, params: {}, seed, timeoutMs: 20_000 }, pool));
    const bad = runs.filter((r) => r.outcome.kind !== "ok");
    assert.deepEqual(bad.map((r) => `seed ${r.spec.seed}: ${r.result.stderr.trim() || r.outcome.kind}`), []);
    assert.ok(runs.every((r) => r.result.stdout.includes("conformance: ok")));
    if (strategy !== "none") assert.ok(runs.some((r) => r.trace!.events.some((e) => e.held)), "the strategy held completions");
  });
}

test("the conformance program also passes in spawned processes (UV_THREADPOOL_SIZE=1)", async () => {
  const runs = await mapLimit(["shuffle", "delay", "demux", "pct", "horizon", "late", "mix"] as const, 2, (strategy) =>
    execute({ script, args: [], strategy, params: {}, seed: 42, timeoutMs: 20_000 }));
  assert.deepEqual(runs.filter((r) => r.outcome.kind !== "ok").map((r) => r.result.stderr), []);
});

test("guided runs (racing pairs of an observation run, one postponed per run) break no guarantee", async () => {
  const base = await execute({ script, args: [], strategy: "none", params: {}, seed: 0, timeoutMs: 20_000 }, pool);
  const cands = raceCandidates(base.trace!.events);
  assert.ok(cands.length > 10, `${cands.length} racing pairs observed`);
  const picks = Array.from({ length: 30 }, (_, i) => cands[(i * 7) % cands.length]!);
  const runs = await mapLimit(picks, 6, (c) => execute({ script, args: [], strategy: "guided", params: guideParams(c), seed: 1, timeoutMs: 20_000 }, pool));
  assert.deepEqual(runs.filter((r) => r.outcome.kind !== "ok").map((r) => `${r.spec.params.guideA}: ${r.result.stderr.trim()}`), []);
  assert.ok(runs.some((r) => r.trace!.events.some((e) => e.held)), "guided runs postponed callbacks");
});
