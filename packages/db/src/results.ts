// Applying a job result to the campaign, exactly once.
//
// One transaction: mark the job done (if it already was, the whole result is
// a duplicate delivery and nothing else happens), insert-or-ignore its feature
// keys (the ones that come back are new to the campaign), keep the corpus
// candidates that brought any of those, record crashes, bump counters, merge
// coverage, add a coverage sample.
import { createHash } from "node:crypto";
import libCoverage from "istanbul-lib-coverage";
import type { Finding, JobResult } from "@fuzzfarm/protocol";
import type { Db } from "./client";
import { pgSafe } from "./internal/pg-safe";
import { recordCrash } from "./crashes";

/** Feature-key prefixes that count as schedule / program novelty rather than code coverage. */
export const NOVELTY_PREFIXES = ["race:", "rf:", "outcome:", "gen:"] as const;
export const isNoveltyKey = (k: string) => NOVELTY_PREFIXES.some((p) => k.startsWith(p));

/** What triage decided for one finding of the result (same order as result.findings). */
export interface ClassifiedFinding {
  finding: Finding;
  kind: string;
  signature: string;
  title: string;
  frames: unknown[];
  triage: unknown;
  hits: number;
}

export interface ApplyOptions {
  targetId: string;
  targetVersion?: string;
  classified: ClassifiedFinding[];
  reproCommand?: (c: ClassifiedFinding) => string;
}

export interface ApplySummary {
  duplicate: boolean;
  newCoverage: number;
  newNovelty: number;
  newCorpus: number;
  crashes: number;
  newBuckets: string[];
}

const INSERT_FEATURES = `INSERT INTO "Feature" ("campaignId", key, "jobId") SELECT $1, k, $2 FROM unnest($3::text[]) AS k
  ON CONFLICT DO NOTHING RETURNING key`;

export async function applyResult(db: Db, result: JobResult, opts: ApplyOptions): Promise<ApplySummary> {
  // Feature keys, strategies, messages may carry NUL from fuzzed inputs: PostgreSQL text cannot.
  const r = pgSafe(result);
  return db.prisma.$transaction(
    async (tx) => {
      const done = await tx.job.updateMany({
        where: { id: r.jobId, status: { not: "done" } },
        data: { status: "done", finishedAt: new Date(r.finishedAt), execs: r.execs, busyMs: Math.round(r.busyMs), workerId: r.workerId, error: r.error ? `${r.error.kind}: ${r.error.message}` : null },
      });
      const empty: ApplySummary = { duplicate: true, newCoverage: 0, newNovelty: 0, newCorpus: 0, crashes: 0, newBuckets: [] };
      if (done.count === 0) return empty;

      // Lock the campaign row: one result at a time per campaign.
      const [camp] = (await tx.$queryRawUnsafe(`SELECT "coverageMap", "coverageTotal" FROM "Campaign" WHERE id = $1 FOR UPDATE`, r.campaignId)) as {
        coverageMap: unknown;
        coverageTotal: number;
      }[];

      const keys = [...new Set([...r.features, ...r.corpus.flatMap((c) => c.features)])];
      const fresh = new Set(
        keys.length ? ((await tx.$queryRawUnsafe(INSERT_FEATURES, r.campaignId, r.jobId, keys)) as { key: string }[]).map((x) => x.key) : [],
      );
      let newNovelty = 0;
      for (const k of fresh) if (isNoveltyKey(k)) newNovelty++;

      // Corpus: a candidate earns a place if it brought a key new to the campaign not already claimed.
      const claimed = new Set<string>();
      const entries = [];
      for (const c of r.corpus) {
        const mine = c.features.filter((f) => fresh.has(f) && !claimed.has(f));
        if (!mine.length) continue;
        mine.forEach((f) => claimed.add(f));
        const input = Buffer.from(c.data, "base64");
        entries.push({
          campaignId: r.campaignId,
          hash: createHash("sha256").update(input).update(JSON.stringify(c.strategy)).digest("hex"),
          input: new Uint8Array(input),
          strategy: c.strategy as object,
          parentId: c.parentId,
          newFeatures: mine.slice(0, 1000),
          newCoverage: mine.filter((k) => !isNoveltyKey(k)).length,
          execTimeUs: c.execTimeUs,
          jobId: r.jobId,
        });
      }
      const inserted = entries.length ? (await tx.corpusEntry.createMany({ data: entries, skipDuplicates: true })).count : 0;
      // Seeds that were used by this job and led to new entries become "productive".
      const productiveParents = [...new Set(entries.map((e) => e.parentId).filter((p): p is string => !!p))];
      if (productiveParents.length)
        await tx.corpusEntry.updateMany({ where: { id: { in: productiveParents } }, data: { timesProductive: { increment: 1 } } });

      const newBuckets: string[] = [];
      let crashes = 0;
      for (let i = 0; i < opts.classified.length; i++) {
        const c = opts.classified[i]!;
        const f = c.finding;
        const rec = await recordCrash(tx, {
          targetId: opts.targetId,
          targetVersion: opts.targetVersion,
          campaignId: r.campaignId,
          jobId: r.jobId,
          ordinal: i,
          kind: c.kind,
          signature: c.signature,
          title: c.title,
          frames: c.frames,
          message: f.message,
          stack: f.stack,
          input: f.reproducer.engine !== "wasm" && f.reproducer.input ? Buffer.from(f.reproducer.input, "base64") : undefined,
          artifact: { reproducer: f.reproducer, detail: f.detail },
          triage: c.triage,
          reproCommand: opts.reproCommand?.(c),
          hits: c.hits,
        });
        if (!rec.duplicate) crashes += c.hits;
        if (rec.newBucket) newBuckets.push(rec.bucketId);
      }

      let coverageMap = camp?.coverageMap ?? null;
      if (r.coverage) {
        const map = libCoverage.createCoverageMap((coverageMap ?? {}) as libCoverage.CoverageMapData);
        map.merge(r.coverage as libCoverage.CoverageMapData);
        coverageMap = map.toJSON();
      }
      // featureTotal sizes the coverage space; results with only novelty keys (race pairs, outcomes) leave it alone.
      const hasCoverage = r.features.some((k) => !isNoveltyKey(k));
      const coverageTotal = hasCoverage ? Math.max(camp?.coverageTotal ?? 0, r.featureTotal) : (camp?.coverageTotal ?? 0);
      const updated = await tx.campaign.update({
        where: { id: r.campaignId },
        data: {
          jobsDone: { increment: 1 },
          execs: { increment: BigInt(r.execs) },
          busyMs: { increment: BigInt(Math.round(r.busyMs)) },
          covered: { increment: fresh.size - newNovelty },
          novelty: { increment: newNovelty },
          corpusSize: { increment: inserted },
          coverageTotal,
          ...(r.coverage ? { coverageMap: coverageMap as object } : {}),
        },
      });
      const buckets = await tx.crashReport.findMany({ where: { campaignId: r.campaignId }, distinct: ["bucketId"], select: { bucketId: true } });
      await tx.coverageSample.create({
        data: {
          campaignId: r.campaignId,
          execs: updated.execs,
          covered: updated.covered,
          coverageTotal: updated.coverageTotal,
          novelty: updated.novelty,
          corpusSize: updated.corpusSize,
          buckets: buckets.length,
          strategyYield: r.strategyYield as object,
        },
      });
      return { duplicate: false, newCoverage: fresh.size - newNovelty, newNovelty, newCorpus: inserted, crashes, newBuckets };
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
}

/** Corpus entries of a campaign for seed selection (most recent first). */
export async function corpusEntries(db: Db, campaignId: string, limit = 2000) {
  return db.prisma.corpusEntry.findMany({
    where: { campaignId },
    orderBy: { createdAt: "desc" },
    take: limit,
    select: { id: true, input: true, strategy: true, execTimeUs: true, newCoverage: true, timesChosen: true, timesProductive: true, createdAt: true, newFeatures: true },
  });
}

export async function markChosen(db: Db, ids: string[]): Promise<void> {
  if (ids.length) await db.prisma.corpusEntry.updateMany({ where: { id: { in: ids } }, data: { timesChosen: { increment: 1 } } });
}
