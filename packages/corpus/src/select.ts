// Choosing n seeds for the next job: weighted sampling without replacement
// (Efraimidis-Spirakis: key = u^(1/w), keep the n largest keys), weights from
// the power schedule. Heavy seeds are likely, light ones still possible, and
// the same rng seed always gives the same selection.
import type { Rng } from "@fuzzfarm/rng";
import { latestClock, meanExecUs, seedWeight, type ScheduleOptions, type SeedStats } from "./schedule";

export function selectSeeds<T extends SeedStats>(entries: readonly T[], n: number, rng: Rng, opts: ScheduleOptions = {}): T[] {
  if (n <= 0 || entries.length === 0) return [];
  if (n >= entries.length) return entries.slice();
  const now = opts.now ?? latestClock(entries);
  const mean = opts.meanExecUs ?? meanExecUs(entries);
  const keyed = entries.map((e) => {
    const w = seedWeight(e, now, mean, opts.halfLife);
    // log(u)/w is monotone in u^(1/w) and does not underflow for small w.
    const u = Math.max(rng.float(), Number.MIN_VALUE);
    return { e, key: Math.log(u) / w };
  });
  keyed.sort((a, b) => b.key - a.key);
  return keyed.slice(0, n).map((k) => k.e);
}
