// Regression: the fuzzer held a child's stdout read (arrived from core before
// the child's exit) past the exit's poll phase, so a grace timer armed on
// 'exit' ran before output the child had written before exiting: a false
// alarm on simple-git 1.105.0 (bench/real-bugs/simple-git-252). Node reads
// such output in the exit's poll phase at the latest (scheduler.cjs
// releaseSamePhase); the exit may still come first.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { execute, WarmPool } from "../src/index";
import { FIXTURES, mapLimit } from "./helpers";

const pool = new WarmPool(2);
after(() => pool.close());
const script = join(FIXTURES, "child-exit-output.cjs");

test("a child's output written before its exit is read before a 50 ms timer armed on 'exit' runs (horizon, 40 seeds)", async () => {
  const runs = await mapLimit(Array.from({ length: 40 }, (_, i) => i + 1), 2, (seed) =>
    execute({ script, args: [], strategy: "horizon", params: {}, seed, timeoutMs: 20_000 }, pool));
  const bad = runs.filter((r) => r.outcome.kind !== "ok");
  assert.deepEqual(bad.map((r) => `seed ${r.spec.seed}: ${r.result.stderr.trim() || r.outcome.kind}`), []);
  assert.ok(runs.every((r) => r.result.stdout.includes("child-exit-output: ok")));
  // the exit is still delivered before the output in some runs (legal within one poll phase)
  const exitFirst = runs.some((r) => {
    const ev = r.trace!.events;
    const firstExit = ev.findIndex((e) => e.kind === "exit");
    return firstExit >= 0 && ev.slice(firstExit + 1).some((e) => e.kind === "read" && e.held);
  });
  assert.ok(exitFirst, "some run delivered a child's exit before a held read of its output");
});
