// Read queries of the web dashboard and its JSON API. Everything here is a
// bounded read: lists are paginated, time series are downsampled in SQL, and
// numbers leave as plain JS numbers (BigInt columns are converted), so the
// web layer can serialize the results as they are.
import { FuzzFarmError } from "@fuzzfarm/protocol";
import type { Db } from "./client";

const num = (v: unknown): number => (v === null || v === undefined ? 0 : typeof v === "bigint" ? Number(v) : Number(v));

/** A page of rows plus the total row count of the filter. */
export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

// ---------------------------------------------------------------- campaigns

export interface CampaignSummary {
  id: string;
  targetId: string;
  targetName: string;
  targetVersion: string;
  engine: string;
  status: string;
  startedAt: Date;
  deadline: Date;
  endedAt: Date | null;
  jobsDone: number;
  execs: number;
  /** Running: execs over the last `rateWindowMs`; otherwise the lifetime average. */
  execsPerSec: number;
  covered: number;
  coverageTotal: number;
  novelty: number;
  corpusSize: number;
  /** Distinct (unmerged) buckets the campaign's reports fall into. */
  buckets: number;
  /** Of those, the ones nobody triaged yet (status "new"). */
  newBuckets: number;
}

export interface CampaignListOptions {
  /** Only campaigns in this state (running | completed | stopped | failed). */
  status?: string;
  /** Page size; default 50. */
  limit?: number;
  /** Default 0. */
  offset?: number;
  /** Window of the live execs/s rate; default 60 000 ms. */
  rateWindowMs?: number;
  /** Clock, for tests; default Date.now(). */
  now?: number;
}

export async function listCampaignSummaries(db: Db, o: CampaignListOptions = {}): Promise<Page<CampaignSummary>> {
  const limit = o.limit ?? 50;
  const offset = o.offset ?? 0;
  const where = o.status ? { status: o.status } : {};
  const [rows, total] = await Promise.all([
    db.prisma.campaign.findMany({
      where,
      orderBy: [{ startedAt: "desc" }, { id: "asc" }],
      take: limit,
      skip: offset,
      omit: { coverageMap: true, config: true },
      include: { target: { select: { name: true, version: true } } },
    }),
    db.prisma.campaign.count({ where }),
  ]);
  const ids = rows.map((r) => r.id);
  const [rates, counts] = await Promise.all([execRates(db, rows, o.rateWindowMs ?? 60_000, o.now ?? Date.now()), bucketCounts(db, ids)]);
  const items = rows.map((c) => ({
    id: c.id,
    targetId: c.targetId,
    targetName: c.target.name,
    targetVersion: c.target.version,
    engine: c.engine,
    status: c.status,
    startedAt: c.startedAt,
    deadline: c.deadline,
    endedAt: c.endedAt,
    jobsDone: c.jobsDone,
    execs: num(c.execs),
    execsPerSec: rates.get(c.id) ?? 0,
    covered: c.covered,
    coverageTotal: c.coverageTotal,
    novelty: c.novelty,
    corpusSize: c.corpusSize,
    buckets: counts.get(c.id)?.total ?? 0,
    newBuckets: counts.get(c.id)?.fresh ?? 0,
  }));
  return { items, total, limit, offset };
}

interface RateInput {
  id: string;
  status: string;
  execs: bigint;
  startedAt: Date;
  endedAt: Date | null;
}

async function execRates(db: Db, rows: RateInput[], windowMs: number, now: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const running = rows.filter((r) => r.status === "running");
  for (const r of rows) {
    if (r.status === "running") continue;
    const secs = ((r.endedAt ?? new Date(now)).getTime() - r.startedAt.getTime()) / 1000;
    out.set(r.id, secs > 0 ? num(r.execs) / secs : 0);
  }
  if (!running.length) return out;
  const since = new Date(now - windowMs);
  // The last sample at or before the window start is the baseline (one index probe per campaign);
  // none means the campaign started inside the window.
  const base = (await db.prisma.$queryRawUnsafe(
    `SELECT c.id, s.execs FROM unnest($1::text[]) AS c(id)
     CROSS JOIN LATERAL (SELECT execs FROM "CoverageSample" WHERE "campaignId" = c.id AND at <= $2 ORDER BY at DESC LIMIT 1) s`,
    running.map((r) => r.id),
    since,
  )) as { id: string; execs: bigint }[];
  const baseOf = new Map(base.map((b) => [b.id, num(b.execs)]));
  for (const r of running) {
    const from = baseOf.has(r.id) ? since.getTime() : Math.max(since.getTime(), r.startedAt.getTime());
    const secs = (now - from) / 1000;
    out.set(r.id, secs > 0 ? Math.max(0, num(r.execs) - (baseOf.get(r.id) ?? 0)) / secs : 0);
  }
  return out;
}

async function bucketCounts(db: Db, campaignIds: string[]): Promise<Map<string, { total: number; fresh: number }>> {
  if (!campaignIds.length) return new Map();
  const rows = (await db.prisma.$queryRawUnsafe(
    `SELECT x."campaignId" AS id, count(*) AS total, count(*) FILTER (WHERE b.status = 'new') AS fresh
     FROM (SELECT DISTINCT "campaignId", "bucketId" FROM "CrashReport" WHERE "campaignId" = ANY($1::text[])) x
     JOIN "CrashBucket" b ON b.id = x."bucketId" AND b."mergedIntoId" IS NULL
     GROUP BY x."campaignId"`,
    campaignIds,
  )) as { id: string; total: bigint; fresh: bigint }[];
  return new Map(rows.map((r) => [r.id, { total: num(r.total), fresh: num(r.fresh) }]));
}

export async function campaignSummary(db: Db, id: string, now = Date.now()): Promise<CampaignSummary & { config: unknown; targetPath: string; busyMs: number }> {
  const c = await db.prisma.campaign.findUnique({ where: { id }, omit: { coverageMap: true }, include: { target: true } });
  if (!c) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no campaign ${id}`);
  const [rates, counts] = await Promise.all([execRates(db, [c], 60_000, now), bucketCounts(db, [id])]);
  return {
    id: c.id,
    targetId: c.targetId,
    targetName: c.target.name,
    targetVersion: c.target.version,
    targetPath: c.target.path,
    engine: c.engine,
    status: c.status,
    config: c.config,
    startedAt: c.startedAt,
    deadline: c.deadline,
    endedAt: c.endedAt,
    jobsDone: c.jobsDone,
    execs: num(c.execs),
    busyMs: num(c.busyMs),
    execsPerSec: rates.get(id) ?? 0,
    covered: c.covered,
    coverageTotal: c.coverageTotal,
    novelty: c.novelty,
    corpusSize: c.corpusSize,
    buckets: counts.get(id)?.total ?? 0,
    newBuckets: counts.get(id)?.fresh ?? 0,
  };
}

/** Throws FF_ERR_NOT_FOUND unless the campaign exists (one primary-key lookup). */
export async function assertCampaign(db: Db, id: string): Promise<void> {
  const c = await db.prisma.campaign.findUnique({ where: { id }, select: { id: true } });
  if (!c) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no campaign ${id}`);
}

export interface SeriesPoint {
  at: Date;
  execs: number;
  covered: number;
  coverageTotal: number;
  novelty: number;
  corpusSize: number;
  buckets: number;
}

/**
 * Coverage samples of a campaign over time, downsampled to at most `maxPoints`:
 * the latest sample at or before each of `maxPoints` evenly spaced instants
 * between the first and the last sample. One index probe per point, so the
 * cost does not grow with the campaign's length.
 */
export async function campaignSeries(db: Db, campaignId: string, maxPoints = 300): Promise<SeriesPoint[]> {
  const n = Math.max(2, Math.floor(maxPoints));
  const rows = (await db.prisma.$queryRawUnsafe(
    `WITH span AS (SELECT min(at) AS lo, max(at) AS hi FROM "CoverageSample" WHERE "campaignId" = $1)
     SELECT s.id, s.at, s.execs, s.covered, s."coverageTotal", s.novelty, s."corpusSize", s.buckets
     FROM span CROSS JOIN generate_series(0, $2 - 1) AS g(i)
     CROSS JOIN LATERAL (
       SELECT id, at, execs, covered, "coverageTotal", novelty, "corpusSize", buckets FROM "CoverageSample"
       WHERE "campaignId" = $1 AND at <= CASE WHEN g.i = $2 - 1 THEN span.hi ELSE span.lo + (span.hi - span.lo) * (g.i::float8 / ($2 - 1)) END
       ORDER BY at DESC, id DESC LIMIT 1) s
     WHERE span.lo IS NOT NULL
     ORDER BY g.i`,
    campaignId,
    n,
  )) as { id: bigint; at: Date; execs: bigint; covered: number; coverageTotal: number; novelty: number; corpusSize: number; buckets: number }[];
  const out: SeriesPoint[] = [];
  let last: bigint | null = null;
  for (const r of rows) {
    if (r.id === last) continue;
    last = r.id;
    out.push({ at: r.at, execs: num(r.execs), covered: num(r.covered), coverageTotal: num(r.coverageTotal), novelty: num(r.novelty), corpusSize: num(r.corpusSize), buckets: num(r.buckets) });
  }
  return out;
}

export interface StrategyYieldRow {
  strategy: string;
  execs: number;
  newFeatures: number;
  findings: number;
  jobs: number;
}

/**
 * Per-strategy yield summed over the campaign's jobs whose coverage sample id
 * is greater than `afterSampleId` (default: all): which perturbation
 * strategies found novelty and crashes. Sample ids of one campaign grow in
 * commit order (applyResult inserts them under the campaign's row lock), so
 * a caller can keep running totals and ask only for what is new.
 */
export async function campaignStrategyYield(db: Db, campaignId: string, afterSampleId = 0n): Promise<{ items: StrategyYieldRow[]; lastSampleId: bigint }> {
  // Fix the upper end first, so the totals and lastSampleId describe the same samples.
  const top = (await db.prisma.$queryRawUnsafe(`SELECT max(id) AS "lastId" FROM "CoverageSample" WHERE "campaignId" = $1`, campaignId)) as { lastId: bigint | null }[];
  const lastSampleId = top[0]?.lastId ? BigInt(top[0].lastId) : afterSampleId;
  if (lastSampleId <= afterSampleId) return { items: [], lastSampleId: afterSampleId };
  const rows = (await db.prisma.$queryRawUnsafe(
    `SELECT y.key AS strategy,
            sum(COALESCE((y.value->>'execs')::bigint, 0)) AS execs,
            sum(COALESCE((y.value->>'newFeatures')::bigint, 0)) AS "newFeatures",
            sum(COALESCE((y.value->>'findings')::bigint, 0)) AS findings,
            count(*) AS jobs
     FROM "CoverageSample" s CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(s."strategyYield") = 'object' THEN s."strategyYield" ELSE '{}'::jsonb END) y
     WHERE s."campaignId" = $1 AND s.id > $2::bigint AND s.id <= $3::bigint AND jsonb_typeof(y.value) = 'object'
     GROUP BY y.key`,
    campaignId,
    afterSampleId.toString(),
    lastSampleId.toString(),
  )) as { strategy: string; execs: bigint; newFeatures: bigint; findings: bigint; jobs: bigint }[];
  const items = rows
    .map((r) => ({ strategy: r.strategy, execs: num(r.execs), newFeatures: num(r.newFeatures), findings: num(r.findings), jobs: num(r.jobs) }))
    .sort((a, b) => b.newFeatures - a.newFeatures || a.strategy.localeCompare(b.strategy));
  return { items, lastSampleId };
}

export interface ThroughputBin {
  start: Date;
  jobs: number;
  execs: number;
  /** Mean queued-to-finished latency of the bin's jobs, ms. */
  meanLatencyMs: number;
}

export interface JobThroughput {
  byStatus: Record<string, number>;
  binMs: number;
  bins: ThroughputBin[];
}

/** Jobs finished per time bin (about `bins` bins over the campaign's span) and job counts per status. */
export async function campaignThroughput(db: Db, campaignId: string, bins = 60): Promise<JobThroughput> {
  const [statusRows, span] = await Promise.all([
    db.prisma.job.groupBy({ by: ["status"], where: { campaignId }, _count: { _all: true } }),
    db.prisma.$queryRawUnsafe(`SELECT min("finishedAt") AS lo, max("finishedAt") AS hi FROM "Job" WHERE "campaignId" = $1 AND status = 'done'`, campaignId) as Promise<
      { lo: Date | null; hi: Date | null }[]
    >,
  ]);
  const byStatus: Record<string, number> = {};
  for (const s of statusRows) byStatus[s.status] = s._count._all;
  const lo = span[0]?.lo;
  const hi = span[0]?.hi;
  if (!lo || !hi) return { byStatus, binMs: 0, bins: [] };
  const binMs = Math.max(1000, Math.ceil((hi.getTime() - lo.getTime() + 1) / Math.max(1, bins)));
  const rows = (await db.prisma.$queryRawUnsafe(
    `SELECT date_bin(make_interval(secs => $3::float8 / 1000), "finishedAt", $2::timestamp) AS start, count(*) AS jobs, sum(execs) AS execs,
            extract(epoch FROM avg("finishedAt" - "queuedAt")) * 1000 AS lat
     FROM "Job" WHERE "campaignId" = $1 AND status = 'done' GROUP BY 1 ORDER BY 1`,
    campaignId,
    lo,
    binMs,
  )) as { start: Date; jobs: bigint; execs: bigint; lat: number | string | null }[];
  return {
    byStatus,
    binMs,
    bins: rows.map((r) => ({ start: r.start, jobs: num(r.jobs), execs: num(r.execs), meanLatencyMs: Math.max(0, num(r.lat)) })),
  };
}

/** How far the campaign's coverage map has moved (jobs applied), without loading the map. */
export async function campaignCoverageStamp(db: Db, campaignId: string): Promise<number> {
  const c = await db.prisma.campaign.findUnique({ where: { id: campaignId }, select: { jobsDone: true } });
  if (!c) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no campaign ${campaignId}`);
  return c.jobsDone;
}

/** The merged istanbul CoverageMapData of a campaign and where its target lives (for locating sources). */
export async function campaignCoverage(db: Db, campaignId: string) {
  const c = await db.prisma.campaign.findUnique({
    where: { id: campaignId },
    select: { id: true, coverageMap: true, jobsDone: true, target: { select: { name: true, path: true, version: true } } },
  });
  if (!c) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no campaign ${campaignId}`);
  return { id: c.id, jobsDone: c.jobsDone, coverageMap: (c.coverageMap ?? {}) as Record<string, unknown>, target: c.target };
}

// ------------------------------------------------------------------ buckets

export const BUCKET_SORTS = ["count", "lastSeen", "firstSeen", "kind", "status", "reproRate", "title", "version"] as const;
export type BucketSort = (typeof BUCKET_SORTS)[number];

/** Sort expressions; nullable ones also sort NULLs last. */
const SORT_SQL: Record<BucketSort, string> = {
  count: `b.count`,
  lastSeen: `b."lastSeen"`,
  firstSeen: `b."firstSeen"`,
  kind: `b.kind`,
  status: `b.status`,
  reproRate: `(CASE WHEN b."reproRuns" > 0 THEN b."reproHits"::float / b."reproRuns" END)`,
  title: `b.title`,
  version: `b."lastSeenVersion"`,
};
const NULLABLE = new Set<BucketSort>(["reproRate", "version"]);

export interface BucketQuery {
  kind?: string;
  status?: string;
  targetId?: string;
  /** Only buckets with at least one report from this campaign. */
  campaignId?: string;
  /** Target version seen first or last. */
  version?: string;
  /** Case-insensitive substring of the title or signature. */
  q?: string;
  /** Default "count". */
  sort?: BucketSort;
  /** Default "desc". */
  order?: "asc" | "desc";
  /** Default 50. */
  limit?: number;
  /** Default 0. */
  offset?: number;
  /** Count the rows matching the filter (Page.total); default true. When false, total is -1. */
  count?: boolean;
}

export interface BucketRow {
  id: string;
  targetId: string;
  targetName: string;
  kind: string;
  title: string;
  signature: string;
  status: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
  firstSeenVersion: string | null;
  lastSeenVersion: string | null;
  reproRuns: number;
  reproHits: number;
  /** reproHits / reproRuns, or null before any reproduction run. */
  reproRate: number | null;
  reproLabel: string;
  hasMinimized: boolean;
}

/** Unmerged buckets, filtered, sorted (whitelisted columns) and paginated on the server. */
export async function queryBuckets(db: Db, f: BucketQuery = {}): Promise<Page<BucketRow>> {
  const limit = Math.min(Math.max(1, f.limit ?? 50), 500);
  const offset = Math.max(0, f.offset ?? 0);
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const conds = [`b."mergedIntoId" IS NULL`];
  if (f.kind) conds.push(`b.kind = ${p(f.kind)}`);
  if (f.status) conds.push(`b.status = ${p(f.status)}`);
  if (f.targetId) conds.push(`b."targetId" = ${p(f.targetId)}`);
  if (f.version) {
    const v = p(f.version);
    conds.push(`(b."firstSeenVersion" = ${v} OR b."lastSeenVersion" = ${v})`);
  }
  if (f.q) {
    const q = p(`%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    conds.push(`(b.title ILIKE ${q} OR b.signature ILIKE ${q})`);
  }
  if (f.campaignId) conds.push(`EXISTS (SELECT 1 FROM "CrashReport" r WHERE r."bucketId" = b.id AND r."campaignId" = ${p(f.campaignId)})`);
  const where = conds.join(" AND ");
  const key: BucketSort = f.sort && f.sort in SORT_SQL ? f.sort : "count";
  const dir = f.order === "asc" ? "ASC" : "DESC";
  const countParams = [...params];
  const sql = `SELECT b.id, b."targetId", t.name AS "targetName", b.kind, b.title, b.signature, b.status, b.count, b."firstSeen", b."lastSeen",
      b."firstSeenVersion", b."lastSeenVersion", b."reproRuns", b."reproHits", b."reproLabel", (b.minimized IS NOT NULL) AS "hasMinimized"
    FROM "CrashBucket" b JOIN "Target" t ON t.id = b."targetId"
    WHERE ${where}
    ORDER BY ${SORT_SQL[key]} ${dir}${NULLABLE.has(key) ? " NULLS LAST" : ""}, b.id ${dir}
    LIMIT ${p(limit)} OFFSET ${p(offset)}`;
  const [rows, cnt] = await Promise.all([
    db.prisma.$queryRawUnsafe(sql, ...params) as Promise<(Omit<BucketRow, "reproRate">)[]>,
    f.count === false ? Promise.resolve([{ n: -1n }]) : (db.prisma.$queryRawUnsafe(`SELECT count(*) AS n FROM "CrashBucket" b WHERE ${where}`, ...countParams) as Promise<{ n: bigint }[]>),
  ]);
  return {
    items: rows.map((r) => ({ ...r, count: num(r.count), reproRate: r.reproRuns > 0 ? r.reproHits / r.reproRuns : null })),
    total: num(cnt[0]?.n),
    limit,
    offset,
  };
}

/** A bucket with its target, triage history and reproduction facts (reports are paged by `bucketReports`). */
export async function bucketDetail(db: Db, id: string) {
  const b = await db.prisma.crashBucket.findUnique({
    where: { id },
    omit: { reproducer: true, minimized: true },
    include: { target: true, events: { orderBy: { at: "desc" }, take: 200 } },
  });
  if (!b) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no bucket ${id}`);
  const [sizes, reports, campaigns] = await Promise.all([
    db.prisma.$queryRawUnsafe(
      `SELECT octet_length(reproducer) AS original, octet_length(minimized) AS minimized FROM "CrashBucket" WHERE id = $1`,
      id,
    ) as Promise<{ original: number | null; minimized: number | null }[]>,
    db.prisma.crashReport.count({ where: { bucketId: id } }),
    db.prisma.$queryRawUnsafe(`SELECT DISTINCT "campaignId" AS id FROM "CrashReport" WHERE "bucketId" = $1 AND "campaignId" IS NOT NULL LIMIT 50`, id) as Promise<
      { id: string }[]
    >,
  ]);
  const hasReproducer = sizes[0]?.original !== null && sizes[0]?.original !== undefined;
  return {
    ...b,
    // Buckets the coordinator files carry no command of their own: every bucket with a reproducer replays with `fuzzfarm repro <id>`.
    reproCommand: b.reproCommand ?? (hasReproducer ? `npx fuzzfarm repro ${b.id}` : null),
    events: b.events.map((e) => ({ ...e, id: num(e.id) })),
    reproRate: b.reproRuns > 0 ? b.reproHits / b.reproRuns : null,
    reportCount: reports,
    campaignIds: campaigns.map((c) => c.id),
    artifactSizes: { original: sizes[0]?.original ?? null, minimized: sizes[0]?.minimized ?? null },
  };
}

export interface ReportRow {
  id: string;
  bucketId: string;
  campaignId: string | null;
  jobId: string | null;
  kind: string;
  message: string;
  stack: string;
  signature: string;
  targetVersion: string | null;
  hits: number;
  artifact: unknown;
  triage: unknown;
  createdAt: Date;
}

/** Reports of a bucket, oldest first, paginated. */
export async function bucketReports(db: Db, bucketId: string, o: { limit?: number; offset?: number } = {}): Promise<Page<ReportRow>> {
  const limit = Math.min(Math.max(1, o.limit ?? 20), 200);
  const offset = Math.max(0, o.offset ?? 0);
  const [items, total] = await Promise.all([
    db.prisma.crashReport.findMany({
      where: { bucketId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: limit,
      skip: offset,
      omit: { input: true },
    }),
    db.prisma.crashReport.count({ where: { bucketId } }),
  ]);
  return { items, total, limit, offset };
}

export async function getReport(db: Db, id: string): Promise<ReportRow> {
  const r = await db.prisma.crashReport.findUnique({ where: { id }, omit: { input: true } });
  if (!r) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no report ${id}`);
  return r;
}

/** Reproducer bytes of a bucket: the original one of its first report, or the minimized one. */
export async function bucketArtifact(db: Db, id: string, which: "original" | "minimized"): Promise<Buffer> {
  const b = await db.prisma.crashBucket.findUnique({ where: { id }, select: { reproducer: true, minimized: true } });
  if (!b) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no bucket ${id}`);
  const bytes = which === "minimized" ? b.minimized : b.reproducer;
  if (!bytes) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `bucket ${id} has no ${which} reproducer`);
  return Buffer.from(bytes);
}

/** Other unmerged buckets of the same target, same kind first: the usual candidates for a merge. */
export async function similarBuckets(db: Db, id: string, limit = 20) {
  const b = await db.prisma.crashBucket.findUnique({ where: { id }, select: { targetId: true, kind: true } });
  if (!b) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no bucket ${id}`);
  const rows = (await db.prisma.$queryRawUnsafe(
    `SELECT id, kind, title, status, count FROM "CrashBucket"
     WHERE "targetId" = $1 AND id <> $2 AND "mergedIntoId" IS NULL
     ORDER BY (kind = $3) DESC, count DESC, id LIMIT $4`,
    b.targetId,
    id,
    b.kind,
    limit,
  )) as { id: string; kind: string; title: string; status: string; count: number }[];
  return rows.map((r) => ({ ...r, count: num(r.count) }));
}

// ------------------------------------------------------------------ metrics

export interface FarmTotals {
  campaigns: { id: string; status: string; execs: number; jobsDone: number; covered: number; corpusSize: number }[];
  buckets: { kind: string; status: string; buckets: number; crashes: number }[];
  jobs: { status: string; count: number }[];
}

/** Counters for /metrics, read in three small queries. */
export async function farmTotals(db: Db): Promise<FarmTotals> {
  const [campaigns, buckets, jobs] = await Promise.all([
    db.prisma.campaign.findMany({ select: { id: true, status: true, execs: true, jobsDone: true, covered: true, corpusSize: true } }),
    db.prisma.$queryRawUnsafe(
      `SELECT kind, status, count(*) AS buckets, COALESCE(sum(count), 0) AS crashes FROM "CrashBucket" WHERE "mergedIntoId" IS NULL GROUP BY kind, status`,
    ) as Promise<{ kind: string; status: string; buckets: bigint; crashes: bigint }[]>,
    db.prisma.job.groupBy({ by: ["status"], _count: { _all: true } }),
  ]);
  return {
    campaigns: campaigns.map((c) => ({ ...c, execs: num(c.execs) })),
    buckets: buckets.map((b) => ({ kind: b.kind, status: b.status, buckets: num(b.buckets), crashes: num(b.crashes) })),
    jobs: jobs.map((j) => ({ status: j.status, count: j._count._all })),
  };
}

/** Jobs finished after `since` (oldest first, at most `limit`), for the job latency histogram. */
export async function jobsFinishedSince(db: Db, since: Date, limit = 10_000) {
  const rows = await db.prisma.job.findMany({
    where: { finishedAt: { gt: since } },
    orderBy: { finishedAt: "asc" },
    take: limit,
    select: { finishedAt: true, queuedAt: true, busyMs: true, status: true },
  });
  return rows.map((r) => ({ finishedAt: r.finishedAt!, latencyMs: Math.max(0, r.finishedAt!.getTime() - r.queuedAt.getTime()), busyMs: r.busyMs, status: r.status }));
}
