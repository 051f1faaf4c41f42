// Sub-seeds of the wasm engine: program i, run j, thread t each get a seed
// derived from the job's seed by a small stable hash, so each can be drawn
// (and replayed) on its own with @fuzzfarm/rng's createRng.
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
