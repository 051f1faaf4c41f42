// Seeded randomness for the generator, the schedules and the minimizer.
// One class over pure-rand's xoroshiro128+, so every decision is replayable from a seed.
import prand from "pure-rand";

export class Rng {
  private readonly g: prand.RandomGenerator;
  constructor(seed: number) {
    this.g = prand.xoroshiro128plus(seed | 0);
  }
  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return prand.unsafeUniformIntDistribution(lo, hi, this.g);
  }
  chance(p: number): boolean {
    return this.int(0, 9999) < p * 10000;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)]!;
  }
  /** A 32-bit unsigned value. */
  u32(): number {
    return this.int(0, 0xffff) * 0x10000 + this.int(0, 0xffff);
  }
  /** A 64-bit unsigned value. */
  u64(): bigint {
    return (BigInt(this.u32()) << 32n) | BigInt(this.u32());
  }
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  }
}

/** Derive a sub-seed (program i, run j...) from a seed, stable across versions. */
export function subSeed(seed: number, ...salt: number[]): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const s of salt) {
    h = Math.imul(h ^ (s >>> 0), 0x85ebca6b) >>> 0;
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h ^= h >>> 16;
  }
  return h & 0x7fffffff;
}
