// Injected delays are bounded by the timers that guard an operation
// (fixtures/guards.cjs): under the horizon strategy a guarded fs.readFile and
// HTTP request never time out; with the bound switched off (guards=0) the
// same delays make them time out, so the check can fail.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { execute, WarmPool } from "../src/index";
import { FIXTURES, mapLimit } from "./helpers";

const SEEDS = 20;
const pool = new WarmPool(2);
after(() => pool.close());
const script = join(FIXTURES, "guards.cjs");
const runAll = (params: Record<string, number>) => mapLimit(Array.from({ length: SEEDS }, (_, i) => i + 1), 2, (seed) =>
  execute({ script, args: [], strategy: "horizon", params, seed, timeoutMs: 20_000 }, pool));

test(`no delay crosses its operation's own timeout under horizon (${SEEDS} seeds)`, async () => {
  const runs = await runAll({});
  assert.deepEqual(runs.filter((r) => r.outcome.kind !== "ok").map((r) => `seed ${r.spec.seed}: ${r.result.stderr.trim()}`), []);
  assert.ok(runs.some((r) => r.trace!.events.some((e) => e.held && e.delay > 50)), "long delays were injected");
});

test("without the guard bound the same strategy makes guarded operations time out", async () => {
  const runs = await runAll({ guards: 0 });
  const timedOut = runs.filter((r) => /outlived its own/.test(r.result.stderr)).length;
  assert.ok(timedOut > 0, `${timedOut}/${SEEDS} runs timed out`);
});
