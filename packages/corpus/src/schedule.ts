// The power schedule: how much attention each seed gets. One formula serves
// two callers: the input engine picks the seed of every mutation with it, and
// the coordinator uses it to choose which seeds go into the next job.
//
//   weight(e) = speed * novelty * yield * recency
//     speed   = clamp(meanExecUs / execTimeUs, 1/4, 4)          fast seeds give more execs per second
//     novelty = 1 + log2(1 + newFeatures)                       seeds that brought much coverage
//     yield   = (1 + timesProductive) / (1 + timesChosen / 64)  fatigue of seeds mutated without result
//     recency = 1 + 4 * 2^(-(now - lastActive) / halfLife)      lastActive = max(addedAt, lastProductiveAt)
//
// `now`, `addedAt` and `lastProductiveAt` share one clock chosen by the
// caller (execs inside a job, milliseconds in the coordinator); `halfLife` is
// in that unit. A fresh seed thus weighs up to 5x an old one, and a seed that
// keeps finding coverage keeps its boost. Because fatigue divides by the
// choices already made, long-run pick counts grow with the square root of
// the other factors (8x the weight -> ~2.8x the picks), so no seed starves.

export interface SeedStats {
  id: string;
  data: Uint8Array;
  /** Time of one execution of this input, microseconds. */
  execTimeUs: number;
  /** Features this input brought first when it was added. */
  newFeatures: number;
  /** How often it was picked as a parent. */
  timesChosen: number;
  /** How often a child of it brought new features. */
  timesProductive: number;
  /** Clock value when it was added. */
  addedAt: number;
  /** Clock value of its last productive child (absent: never). */
  lastProductiveAt?: number;
}

export interface ScheduleOptions {
  /** Current clock value (same unit as addedAt). Default: the latest addedAt/lastProductiveAt seen. */
  now?: number;
  /** Half-life of the recency boost, in clock units. Default 20000 (execs in the input engine). */
  halfLife?: number;
  /** Mean exec time used as the speed reference. Default: the mean over the entries given. */
  meanExecUs?: number;
}

export const DEFAULT_HALF_LIFE = 20_000;

export function seedWeight(e: SeedStats, now: number, meanExecUs: number, halfLife = DEFAULT_HALF_LIFE): number {
  const speed = Math.min(4, Math.max(0.25, meanExecUs / Math.max(1, e.execTimeUs)));
  const novelty = 1 + Math.log2(1 + Math.max(0, e.newFeatures));
  const yieldRatio = (1 + e.timesProductive) / (1 + e.timesChosen / 64);
  const lastActive = Math.max(e.addedAt, e.lastProductiveAt ?? -Infinity);
  const age = Math.max(0, now - lastActive);
  const recency = 1 + 4 * Math.pow(2, -age / Math.max(1, halfLife));
  return speed * novelty * yieldRatio * recency;
}

export function meanExecUs(entries: readonly SeedStats[]): number {
  if (entries.length === 0) return 1;
  let sum = 0;
  for (const e of entries) sum += Math.max(1, e.execTimeUs);
  return sum / entries.length;
}

export function latestClock(entries: readonly SeedStats[]): number {
  let now = 0;
  for (const e of entries) now = Math.max(now, e.addedAt, e.lastProductiveAt ?? 0);
  return now;
}
