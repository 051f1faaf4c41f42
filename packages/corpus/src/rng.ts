// The one seeded RNG of FuzzFarm (mutators, schedules, the wasm generator and
// its schedules, the coordinator's seed picks). Every random decision of a
// job flows from one seed, so a job (and each mutation it made, each wasm
// program and schedule it drew) can be replayed. Built on pure-rand's
// xoroshiro128+ used in place (unsafe*), which is fast enough for the
// per-exec hot path (~10-20 ns per draw).
//
// Two draw rules live side by side, each keeping the sequences already
// recorded with it: int/range/pick skip the draw when there is one choice
// (the mutators' rule); between/choose/chance/shuffle/u32/u64 always draw
// (the rule engine-wasm's programs and schedules were recorded with: a wasm
// reproducer names a seed, and its replay must make the same draws).
import { xoroshiro128plus, unsafeUniformIntDistribution, type RandomGenerator } from "pure-rand";

export interface Rng {
  /** Uniform integer in [0, n). `n` must be a positive integer; no draw when n <= 1. */
  int(n: number): number;
  /** Uniform integer in [lo, hi] (both inclusive); `lo` without a draw when hi <= lo. */
  range(lo: number, hi: number): number;
  /** Uniform float in [0, 1). */
  float(): number;
  /** True with probability `p` (default 0.5). */
  bool(p?: number): boolean;
  /** A uniformly chosen element of a non-empty array (no draw for one element). */
  pick<T>(arr: readonly T[]): T;
  /** An independent generator derived from this one (for sub-streams). */
  fork(): Rng;
  /** Uniform integer in [lo, hi] (both inclusive), one draw even when lo === hi; `lo` without a draw when hi < lo. */
  between(lo: number, hi: number): number;
  /** A uniformly chosen element of a non-empty array, by `between` (one draw even for one element). */
  choose<T>(arr: readonly T[]): T;
  /** True with probability `p` in steps of 1/10000 (one `between(0, 9999)`). */
  chance(p: number): boolean;
  /** A 32-bit unsigned value (two 16-bit draws). */
  u32(): number;
  /** A 64-bit unsigned value (two u32). */
  u64(): bigint;
  /** Fisher-Yates in place (one `between` per position); returns `xs`. */
  shuffle<T>(xs: T[]): T[];
}

const TWO_32 = 4294967296;

class PureRng implements Rng {
  constructor(private readonly g: RandomGenerator) {}
  int(n: number): number {
    if (n <= 1) return 0;
    return unsafeUniformIntDistribution(0, n - 1, this.g);
  }
  range(lo: number, hi: number): number {
    return hi <= lo ? lo : unsafeUniformIntDistribution(lo, hi, this.g);
  }
  float(): number {
    // 53 bits from two draws, so weights near zero still get distinct values.
    const hi = (this.g.unsafeNext() >>> 0) >>> 5;
    const lo = (this.g.unsafeNext() >>> 0) >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }
  bool(p = 0.5): boolean {
    return (this.g.unsafeNext() >>> 0) / TWO_32 < p;
  }
  pick<T>(arr: readonly T[]): T {
    if (arr.length === 0) throw new RangeError("pick from an empty array");
    return arr[this.int(arr.length)]!;
  }
  fork(): Rng {
    return new PureRng(xoroshiro128plus(this.g.unsafeNext() ^ 0x5bd1e995));
  }
  between(lo: number, hi: number): number {
    return hi < lo ? lo : unsafeUniformIntDistribution(lo, hi, this.g);
  }
  choose<T>(arr: readonly T[]): T {
    if (arr.length === 0) throw new RangeError("choose from an empty array");
    return arr[this.between(0, arr.length - 1)]!;
  }
  chance(p: number): boolean {
    return this.between(0, 9999) < p * 10000;
  }
  u32(): number {
    return this.between(0, 0xffff) * 0x10000 + this.between(0, 0xffff);
  }
  u64(): bigint {
    return (BigInt(this.u32()) << 32n) | BigInt(this.u32());
  }
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.between(0, i);
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  }
}

/** A seeded generator: the same seed gives the same sequence on every machine. */
export function createRng(seed: number): Rng {
  return new PureRng(xoroshiro128plus(seed | 0));
}
