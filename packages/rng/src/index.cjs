// @ts-check
// The one seeded RNG of FuzzFarm: the mutators, the coordinator's seed picks,
// the wasm generator and its schedules, and the Node engine's schedules inside
// the target's own process all draw from it. Every random decision of a job
// flows from one seed, so a job (each mutation, each wasm program and
// schedule, each perturbed event loop) can be replayed.
//
// Plain CommonJS on purpose: the Node engine's preload runs inside the
// target's process, where nothing is compiled, and requires this file as it
// is (the bundle ships it pre-bundled, scripts/build.mjs); TypeScript reads
// its types from the JSDoc. Built on pure-rand's xoroshiro128+ used in place
// (unsafe*), fast enough for the per-exec hot path (~10-20 ns per draw).
//
// Rules kept because recorded seeds depend on them (a reproducer names a
// seed, and its replay must make the same draws):
// - int/range/pick skip the draw when there is one choice (the mutators);
//   between/choose/chance/shuffle/u32/u64 always draw (engine-wasm's
//   programs and schedules); unit() is one 30-bit draw (the Node engine's
//   schedules).
// - `{ scramble: true }` seeding (the Node engine's schedules): xoroshiro128+
//   seeded from a small integer gives nearly the same first draws for
//   neighbouring seeds (seeds 1..6 all drew ~1.00, 0.9x first), so seeds 1..N
//   would explore one schedule; the seed goes through murmur3's 32-bit
//   finalizer and the first 8 draws are discarded.
//
// The one generator outside this file is the wasm runner's xorshift32: its
// state lives in the program's shared memory, so that every thread of one
// run draws from the same stream under Atomics (a pure-rand generator is an
// object no thread can share).
'use strict';
const prand = require('pure-rand');

const TWO_32 = 4294967296;

class Rng {
  /** @type {import('pure-rand').RandomGenerator} */
  #g;
  /** @param {import('pure-rand').RandomGenerator} g */
  constructor(g) {
    this.#g = g;
  }

  /** Uniform integer in [0, n). `n` must be a positive integer; no draw when n <= 1. @param {number} n */
  int(n) {
    if (n <= 1) return 0;
    return prand.unsafeUniformIntDistribution(0, n - 1, this.#g);
  }

  /** Uniform integer in [lo, hi] (both inclusive); `lo` without a draw when hi <= lo. @param {number} lo @param {number} hi */
  range(lo, hi) {
    return hi <= lo ? lo : prand.unsafeUniformIntDistribution(lo, hi, this.#g);
  }

  /** Uniform float in [0, 1): 53 bits from two draws, so weights near zero still get distinct values. */
  float() {
    const hi = (this.#g.unsafeNext() >>> 0) >>> 5;
    const lo = (this.#g.unsafeNext() >>> 0) >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform float in [0, 1) in steps of 2^-30, one draw (the Node engine's schedule rule). */
  unit() {
    return prand.unsafeUniformIntDistribution(0, 0x3fffffff, this.#g) / 0x40000000;
  }

  /** True with probability `p` (default 0.5). */
  bool(p = 0.5) {
    return (this.#g.unsafeNext() >>> 0) / TWO_32 < p;
  }

  /** A uniformly chosen element of a non-empty array (no draw for one element). @template T @param {readonly T[]} arr @returns {T} */
  pick(arr) {
    if (arr.length === 0) throw new RangeError('pick from an empty array');
    return /** @type {T} */ (arr[this.int(arr.length)]);
  }

  /** An independent generator derived from this one (for sub-streams). @returns {Rng} */
  fork() {
    return new Rng(prand.xoroshiro128plus(this.#g.unsafeNext() ^ 0x5bd1e995));
  }

  /** Uniform integer in [lo, hi] (both inclusive), one draw even when lo === hi; `lo` without a draw when hi < lo. @param {number} lo @param {number} hi */
  between(lo, hi) {
    return hi < lo ? lo : prand.unsafeUniformIntDistribution(lo, hi, this.#g);
  }

  /** A uniformly chosen element of a non-empty array, by `between` (one draw even for one element). @template T @param {readonly T[]} arr @returns {T} */
  choose(arr) {
    if (arr.length === 0) throw new RangeError('choose from an empty array');
    return /** @type {T} */ (arr[this.between(0, arr.length - 1)]);
  }

  /** True with probability `p` in steps of 1/10000 (one `between(0, 9999)`). @param {number} p */
  chance(p) {
    return this.between(0, 9999) < p * 10000;
  }

  /** A 32-bit unsigned value (two 16-bit draws). */
  u32() {
    return this.between(0, 0xffff) * 0x10000 + this.between(0, 0xffff);
  }

  /** A 64-bit unsigned value (two u32). @returns {bigint} */
  u64() {
    return (BigInt(this.u32()) << 32n) | BigInt(this.u32());
  }

  /** Fisher-Yates in place (one `between` per position); returns `xs`. @template T @param {T[]} xs @returns {T[]} */
  shuffle(xs) {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.between(0, i);
      const t = /** @type {T} */ (xs[i]);
      xs[i] = /** @type {T} */ (xs[j]);
      xs[j] = t;
    }
    return xs;
  }
}

/**
 * A seeded generator: the same seed gives the same sequence on every machine.
 * @param {number} seed
 * @param {{ scramble?: boolean }} [opts] scramble: neighbouring seeds give unrelated sequences (see above)
 * @returns {Rng}
 */
function createRng(seed, opts) {
  if (!opts?.scramble) return new Rng(prand.xoroshiro128plus(seed | 0));
  let h = (seed | 0) ^ 0x9e3779b9;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  const g = prand.xoroshiro128plus(h | 0);
  for (let i = 0; i < 8; i++) g.unsafeNext();
  return new Rng(g);
}

module.exports = { createRng, Rng };
