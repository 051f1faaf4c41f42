// Litmus by default: with no strategy, `fuzzfarm wasm litmus` explores the
// classic shapes systematically (partial-order reduction over racing accesses,
// plain and atomic alike) and sees every SC-allowed outcome within 50 runs.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { Harness, loadLitmus, runLitmus, runWasmCli } from "../src/index";

const h = new Harness();
after(() => h.close());
const ex = (n: string) => new URL(`../../../examples/wasm/${n}`, import.meta.url).pathname;

// name, SC-allowed outcomes, at most this many runs to explore every order of racing accesses.
const SHAPES: [string, number, number][] = [
  ["sb.wat", 3, 3], ["mp.wat", 3, 3], ["lb.wat", 3, 3], ["2plus2w.wat", 3, 3], ["iriw.wat", 15, 25],
  ["sb-plain.wat", 3, 3], ["atomic-counter.wat", 6, 6], ["counter.wat", 3, 40],
];

test("default strategy: every SC-allowed outcome of the classic shapes within 50 runs, none forbidden, exhaustively", async () => {
  for (const [file, allowed, bound] of SHAPES) {
    for (const seed of [0, 7]) {
      const r = await runLitmus(h, await loadLitmus(ex(file)), { runs: 50, seed });
      assert.equal(r.strategy, "auto");
      assert.equal(r.allowed!.length, allowed, file);
      assert.deepEqual(r.allowed!.filter((a) => !(a in r.outcomes)), [], `${file} seed ${seed}: missing outcomes, saw ${JSON.stringify(r.outcomes)}`);
      assert.deepEqual(r.forbiddenSeen, [], file);
      // Exhaustive within the bound: the outcomes come from the systematic phase, not from luck afterwards.
      assert.equal(r.exhausted, true, `${file}: ${JSON.stringify(r.exploration)}`);
      assert.ok(r.exploration!.exhaustedAfter! <= bound, `${file}: exhausted after ${r.exploration!.exhaustedAfter} runs`);
      assert.ok(Math.max(...r.allowed!.map((a) => r.firstSeen[a]!)) < r.exploration!.exhaustedAfter!, file);
      assert.equal(r.plainAccesses, ["sb-plain.wat", "counter.wat", "mp.wat"].includes(file), file); // (mp: plain data, atomic flag)
    }
  }
});

test("the reduction is sound where every order matters: rmw-chain's 90 outcomes in 90 runs, like plain dfs", async () => {
  const r = await runLitmus(h, await loadLitmus(ex("rmw-chain.wat")), { runs: 200, systematicShare: 1 });
  assert.deepEqual([r.exhausted, r.exploration!.exhaustedAfter], [true, 90]);
  assert.deepEqual(Object.keys(r.outcomes).sort(), r.allowed);
});

test("an exploration that does not fit falls back to guided random runs and says how far it got", async () => {
  const r = await runLitmus(h, await loadLitmus(ex("rmw-chain.wat")), { runs: 50 });
  const e = r.exploration!;
  assert.equal(r.exhausted, false);
  assert.ok(e.systematicRuns >= 25 && e.systematicRuns < 50 && e.guidedRuns === 50 - e.systematicRuns, JSON.stringify(e));
  assert.ok(e.frontier > 0);
  assert.deepEqual(r.forbiddenSeen, []);
  // Every run, systematic or guided, is a new order of racing accesses: here each has its own outcome.
  assert.ok(Object.keys(r.outcomes).length >= 45, `${Object.keys(r.outcomes).length} outcomes`);
  let out = "";
  assert.equal(await runWasmCli(["litmus", ex("rmw-chain.wat"), "--runs", "50"], { stdout: (s) => (out += s), stderr: (s) => (out += s) }), 0);
  assert.match(out, /systematic: \d+ runs, not exhausted within --runs 50 \(\d+ alternatives left/);
  assert.match(out, /guided random: \d+ runs/);
});

test("CLI without --strategy: 'exhaustive: all N SC outcomes seen'; a reorder fault in MP is caught", async () => {
  let out = "";
  const io = { stdout: (s: string) => (out += s), stderr: (s: string) => (out += s) };
  assert.equal(await runWasmCli(["litmus", ex("iriw.wat"), "--runs", "50"], io), 0);
  assert.match(out, /strategy auto/);
  assert.match(out, /exhaustive: all 15 SC outcomes seen/);
  out = "";
  assert.equal(await runWasmCli(["litmus", ex("mp.wat"), "--runs", "50", "--fault", "reorder"], io), 1);
  assert.match(out, /FORBIDDEN under SC/);
});

test("the exploration is a function of the seed: same seed, same runs in the same order", async () => {
  const m = await loadLitmus(ex("iriw.wat"));
  const a = await runLitmus(h, m, { runs: 30, seed: 3 });
  const b = await runLitmus(h, m, { runs: 30, seed: 3 });
  assert.deepEqual([a.firstSeen, a.exploration], [b.firstSeen, b.exploration]);
});
