// The late strategy (preload/strategies.cjs, rule in the engine README): a
// completion is answered after the live program timers and then once the
// program is quiet, newest first or oldest first (with one straggler answered
// last), never past its guards; a child's exit comes as it comes. Each check here fails if the rule breaks.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { execute, WarmPool } from "../src/index";
import { FIXTURES, mapLimit } from "./helpers";
import type { NodeStrategy } from "@fuzzfarm/protocol";

const pool = new WarmPool(2);
after(() => pool.close());
const SEEDS = [1, 2, 3, 4, 5];
const run = (fixture: string, params: Record<string, number>, seeds = SEEDS, strategy: NodeStrategy = "late") =>
  mapLimit(seeds, 2, (seed) => execute({ script: join(FIXTURES, fixture), args: [], strategy, params, seed, timeoutMs: 20_000 }, pool));

test("plain runs finish chain A before the timer", async () => {
  const [plain] = await run("late-chains.cjs", {}, [1], "none");
  assert.equal(plain!.result.stdout.trim(), "a1,a2,a3,a4,T,b1,b2,b3,b4");
});

/** The steps after the timer ran, and how many of A's came after it. */
function afterTimer(out: string): { post: string[]; lateA: number } {
  const order = out.trim().split(",");
  const post = order.slice(order.indexOf("T") + 1);
  return { post, lateA: post.filter((s) => s.startsWith("a")).length };
}

test("late, newest first: the chain started last runs to its end before the first one answers again (5 seeds)", async () => {
  const runs = await run("late-chains.cjs", { lateProb: 1, lifo: 1 });
  for (const r of runs) {
    const { post, lateA } = afterTimer(r.result.stdout);
    assert.ok(lateA > 0, `seed ${r.spec.seed}: chain A finished before the timer: ${r.result.stdout.trim()}`);
    assert.deepEqual(post.slice(0, 4), ["b1", "b2", "b3", "b4"], `seed ${r.spec.seed}: ${r.result.stdout.trim()}`);
  }
});

test("late, oldest first: after the timer the two chains take turns (5 seeds)", async () => {
  const runs = await run("late-chains.cjs", { lateProb: 1, lifo: 0 });
  for (const r of runs) {
    const { post, lateA } = afterTimer(r.result.stdout);
    const out = `seed ${r.spec.seed}: ${r.result.stdout.trim()}`;
    assert.ok(lateA > 0, `chain A finished before the timer: ${out}`);
    // B does not run to its end first (newest first would), and while both
    // chains have steps left neither takes more than two in a row (A's held
    // step becomes eligible 1-4 ms after the timer, so B may go twice first)
    assert.notDeepEqual(post.slice(0, 4), ["b1", "b2", "b3", "b4"], out);
    let run = 1;
    const both = post.findIndex((s, i) => post.slice(i).every((x) => x[0] === s[0]));
    for (let i = 1; i < both; i++) {
      run = post[i]![0] === post[i - 1]![0] ? run + 1 : 1;
      assert.ok(run <= 2, out);
    }
  }
});

test("late, oldest first: the first completion that arrives while another request is in flight is answered after all the others (5 seeds)", async () => {
  const [plain] = await run("late-straggler.cjs", {}, [1], "none");
  assert.equal(plain!.result.stdout.trim(), "stat,readFile");
  const runs = await run("late-straggler.cjs", { lateProb: 1, lifo: 0 });
  assert.deepEqual(runs.map((r) => r.result.stdout.trim()), SEEDS.map(() => "readFile,stat"));
  const without = await run("late-straggler.cjs", { lateProb: 1, lifo: 0, straggler: 0 }, [1, 2]);
  assert.deepEqual(without.map((r) => r.result.stdout.trim()), ["stat,readFile", "stat,readFile"]);
});

test("late: a child's exit is delivered as it arrives and its held output after it (5 seeds)", async () => {
  const runs = await run("late-child.cjs", { lateProb: 1 });
  assert.deepEqual(runs.map((r) => r.result.stdout.trim()), SEEDS.map(() => "exit,data"));
  for (const r of runs) assert.ok(r.trace!.events.every((e) => e.kind !== "exit" || !e.held), "an exit was held");
});

test("late: no delay crosses its operation's own timeout (10 seeds); without the guard bound some do", async () => {
  const seeds = Array.from({ length: 10 }, (_, i) => i + 1);
  const guarded = await run("guards.cjs", {}, seeds);
  assert.deepEqual(guarded.filter((r) => r.outcome.kind !== "ok").map((r) => `seed ${r.spec.seed}: ${r.result.stderr.trim()}`), []);
  const unguarded = await run("guards.cjs", { guards: 0 }, seeds);
  const timedOut = unguarded.filter((r) => /outlived its own/.test(r.result.stderr)).length;
  assert.ok(timedOut > 0, `${timedOut}/10 unguarded runs timed out`);
});
