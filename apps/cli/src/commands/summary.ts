// The stable JSON summary of a campaign (`fuzz --json`, `status --json`); documented in the README.
import { campaignBuckets, getCampaign, type Db } from "@fuzzfarm/db";

export interface CampaignSummary {
  campaignId: string;
  target: { name: string; path: string; version: string };
  engine: string;
  status: string;
  seconds: number;
  executions: number;
  execsPerSecond: number;
  coverage: { covered: number; total: number; percent: number | null };
  novelty: number;
  corpusSize: number;
  jobs: number;
  buckets: {
    id: string;
    kind: string;
    signature: string;
    title: string;
    count: number;
    isNew: boolean;
    status: string;
    reproducer: string;
    reproduction: { runs: number; hits: number; label: string };
    minimized: boolean;
  }[];
}

export async function campaignSummary(db: Db, id: string): Promise<CampaignSummary> {
  const c = await getCampaign(db, id);
  const buckets = await campaignBuckets(db, id);
  const seconds = ((c.endedAt ?? new Date()).getTime() - c.startedAt.getTime()) / 1000;
  const executions = Number(c.execs);
  return {
    campaignId: c.id,
    target: { name: c.target.name, path: c.target.path, version: c.target.version },
    engine: c.engine,
    status: c.status,
    seconds: Math.round(seconds * 10) / 10,
    executions,
    execsPerSecond: Math.round(executions / Math.max(seconds, 0.001)),
    coverage: { covered: c.covered, total: c.coverageTotal, percent: c.coverageTotal ? Math.round((1000 * c.covered) / c.coverageTotal) / 10 : null },
    novelty: c.novelty,
    corpusSize: c.corpusSize,
    jobs: c.jobsDone,
    buckets: buckets.map((b) => ({
      id: b.id,
      kind: b.kind,
      signature: b.signature,
      title: b.title,
      count: b.count,
      isNew: b.firstSeen >= c.startedAt,
      status: b.status,
      reproducer: `fuzzfarm repro ${b.id}`,
      reproduction: { runs: b.reproRuns, hits: b.reproHits, label: b.reproLabel },
      minimized: b.minimized !== null,
    })),
  };
}

/** What a progress line shows: a campaign summary, or the same facts with a bucket count (a farm's CI API). */
export type ProgressFacts = Pick<CampaignSummary, "seconds" | "executions" | "execsPerSecond" | "coverage" | "novelty" | "corpusSize"> & { buckets: readonly unknown[] | number };

export function progressLine(s: ProgressFacts): string {
  const cov = s.coverage.total ? `${s.coverage.covered}/${s.coverage.total} (${s.coverage.percent}%)` : String(s.coverage.covered);
  return `[${s.seconds.toFixed(0)}s] execs ${s.executions} (${s.execsPerSecond}/s)  coverage ${cov}  novelty ${s.novelty}  corpus ${s.corpusSize}  buckets ${typeof s.buckets === "number" ? s.buckets : s.buckets.length}`;
}
