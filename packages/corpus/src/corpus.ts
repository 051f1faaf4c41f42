// The in-memory corpus of one fuzzing job: entries plus the power schedule.
// pick() is called once per execution, so it keeps a cumulative-weight table
// and binary-searches it; the table is rebuilt when entries change and every
// `refreshEvery` picks (timesChosen moves the weights slowly).
import type { Rng } from "@fuzzfarm/rng";
import { DEFAULT_HALF_LIFE, seedWeight, type SeedStats } from "./schedule";

export type CorpusEntry = SeedStats;

export interface CorpusOptions {
  /** Half-life of the recency boost, in clock units. Default 20000. */
  halfLife?: number;
  /** Rebuild the weight table after this many picks. Default 64. */
  refreshEvery?: number;
}

export class Corpus {
  private readonly list: CorpusEntry[] = [];
  private readonly byId = new Map<string, CorpusEntry>();
  private cumulative = new Float64Array(0);
  private dirty = true;
  private picksSinceBuild = 0;
  private execUsSum = 0;
  private readonly halfLife: number;
  private readonly refreshEvery: number;
  /** The schedule's clock (the engine sets it to its exec count). */
  now = 0;

  constructor(opts: CorpusOptions = {}) {
    this.halfLife = opts.halfLife ?? DEFAULT_HALF_LIFE;
    this.refreshEvery = opts.refreshEvery ?? 64;
  }

  get size(): number {
    return this.list.length;
  }

  entries(): readonly CorpusEntry[] {
    return this.list;
  }

  get(id: string): CorpusEntry | undefined {
    return this.byId.get(id);
  }

  /** Add an entry; counters default to zero and addedAt to the current clock. */
  add(e: Pick<CorpusEntry, "id" | "data"> & Partial<CorpusEntry>): CorpusEntry {
    if (this.byId.has(e.id)) throw new Error(`duplicate corpus id ${e.id}`);
    const entry: CorpusEntry = {
      execTimeUs: 0,
      newFeatures: 0,
      timesChosen: 0,
      timesProductive: 0,
      addedAt: this.now,
      ...e,
    };
    this.list.push(entry);
    this.byId.set(entry.id, entry);
    this.execUsSum += Math.max(1, entry.execTimeUs);
    this.dirty = true;
    return entry;
  }

  /** Pick a parent for the next mutation (counts as chosen). */
  pick(rng: Rng): CorpusEntry {
    if (this.list.length === 0) throw new RangeError("pick from an empty corpus");
    if (this.dirty || this.picksSinceBuild >= this.refreshEvery) this.rebuild();
    this.picksSinceBuild++;
    const c = this.cumulative;
    const x = rng.float() * c[c.length - 1]!;
    let lo = 0;
    let hi = c.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (c[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    const e = this.list[lo]!;
    e.timesChosen++;
    return e;
  }

  /** A child of entry `id` brought new features: reward the parent. */
  reward(id: string): void {
    const e = this.byId.get(id);
    if (!e) return;
    e.timesProductive++;
    e.lastProductiveAt = this.now;
    this.dirty = true;
  }

  /** Current weight of an entry under the schedule (for inspection and tests). */
  weight(e: CorpusEntry): number {
    return seedWeight(e, this.now, this.execUsSum / Math.max(1, this.list.length), this.halfLife);
  }

  private rebuild(): void {
    const n = this.list.length;
    if (this.cumulative.length !== n) this.cumulative = new Float64Array(n);
    let acc = 0;
    for (let i = 0; i < n; i++) {
      acc += this.weight(this.list[i]!);
      this.cumulative[i] = acc;
    }
    this.dirty = false;
    this.picksSinceBuild = 0;
  }
}
