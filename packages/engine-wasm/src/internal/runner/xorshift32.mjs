// @ts-check
// The runner's one PRNG step (xorshift32), shared by the token scheduler
// (sched.mjs: its state is a word of the shared control block, so whichever
// thread holds the token continues the one sequence) and the free-mode
// perturbation of each pool thread (worker.mjs). It cannot be @fuzzfarm/corpus's
// createRng: the runner runs without a TypeScript loader (and under other
// runtimes through transport.mjs), a pure-rand generator is an object no
// other thread can step, and wasm reproducers name seeds whose schedules
// must replay with these very draws (test/xorshift.test.ts pins them).

/**
 * One step: the next state (a non-zero int32 stays non-zero). The draw is `next >>> 0`.
 * @param {number} x the current state (int32)
 * @returns {number}
 */
export function xorshift32(x) {
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return x;
}
