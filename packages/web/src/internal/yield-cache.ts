// Running per-strategy yield totals per campaign, kept in memory so a page
// view only aggregates the coverage samples added since the previous view
// (campaignStrategyYield's `afterSampleId`). Updates of one campaign are
// chained, so concurrent views never add the same samples twice. Bounded:
// the least recently used campaigns are dropped.
import { campaignStrategyYield, type Db, type StrategyYieldRow } from "@fuzzfarm/db";

interface Entry {
  last: bigint;
  rows: Map<string, StrategyYieldRow>;
  chain: Promise<StrategyYieldRow[]>;
}

export class StrategyYieldCache {
  private entries = new Map<string, Entry>();
  constructor(
    private readonly db: Db,
    private readonly max = 500,
  ) {}

  get(campaignId: string): Promise<StrategyYieldRow[]> {
    let e = this.entries.get(campaignId);
    if (e) this.entries.delete(campaignId);
    else e = { last: 0n, rows: new Map(), chain: Promise.resolve([]) };
    this.entries.set(campaignId, e);
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    const entry = e;
    const next = entry.chain.catch(() => []).then(async () => {
      const { items, lastSampleId } = await campaignStrategyYield(this.db, campaignId, entry.last);
      for (const r of items) {
        const prev = entry.rows.get(r.strategy);
        entry.rows.set(r.strategy, prev ? { strategy: r.strategy, execs: prev.execs + r.execs, newFeatures: prev.newFeatures + r.newFeatures, findings: prev.findings + r.findings, jobs: prev.jobs + r.jobs } : r);
      }
      entry.last = lastSampleId;
      return [...entry.rows.values()].sort((a, b) => b.newFeatures - a.newFeatures || a.strategy.localeCompare(b.strategy));
    });
    entry.chain = next;
    return next;
  }
}
