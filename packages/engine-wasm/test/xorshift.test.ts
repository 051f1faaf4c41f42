// The runner's PRNG step (runner/xorshift32.mjs) draws what the two inline
// copies it replaced drew (worker.mjs free mode, sched.mjs token choices):
// wasm reproducers name seeds, and their schedules replay only with these draws.
import { test } from "node:test";
import assert from "node:assert/strict";
import { xorshift32 } from "../src/internal/runner/xorshift32.mjs";

/** worker.mjs: per-thread state seeded as runThread seeds it. */
function workerDraws(seed: number, me: number, n: number): number[] {
  let rng = (seed ^ Math.imul(me + 1, 0x9e3779b1)) | 1;
  return Array.from({ length: n }, () => { rng = xorshift32(rng); return rng >>> 0; });
}

/** sched.mjs: the state word of the control block, seeded as child.mjs seeds it. */
function schedDraws(seed: number, n: number): number[] {
  const ctl = new Int32Array(1);
  ctl[0] = (seed | 0) || 1;
  return Array.from({ length: n }, () => { const x = xorshift32(ctl[0]! | 0); ctl[0] = x; return x >>> 0; });
}

test("xorshift32 draws what the runner drew before it was shared (pinned)", () => {
  // computed with the inline code of worker.mjs and sched.mjs before this module existed
  assert.deepEqual(workerDraws(0, 0, 4), [1361921809, 3224134966, 3722112275, 2405525711]);
  assert.deepEqual(workerDraws(12345, 2, 4), [828735722, 2926086806, 1484305515, 2420871473]);
  assert.deepEqual(workerDraws(-7, 5, 4), [4010969531, 2056479625, 3400226808, 2866085266]);
  assert.deepEqual(schedDraws(0, 4), [270369, 67634689, 2647435461, 307599695]);
  assert.deepEqual(schedDraws(987654321, 4), [248404469, 2078538413, 2457683510, 1841886731]);
  assert.deepEqual(schedDraws(-3, 4), [761949, 4094128637, 1562591425, 2454991324]);
});
