// Crash reports and buckets. The bucket row is created or bumped with one
// INSERT ... ON CONFLICT statement, so any number of concurrent reporters of
// the same new crash produce exactly one bucket with the exact count; the
// report's unique (jobId, ordinal) key makes a re-delivered result a no-op.
import type { Db } from "./client";

export interface CrashInput {
  targetId: string;
  targetVersion?: string;
  campaignId?: string;
  jobId?: string;
  ordinal: number;
  kind: string;
  signature: string;
  title: string;
  frames: unknown[];
  message: string;
  stack: string;
  input?: Buffer;
  artifact: unknown;
  triage: unknown;
  reproCommand?: string;
  /** How many times the job hit this same crash (a job dedups its own repeats). */
  hits?: number;
}

type Tx = Pick<Db["prisma"], "$queryRawUnsafe" | "crashReport" | "bucketEvent">;

/** Record one crash report; returns its bucket id and whether the bucket is new. Idempotent per (jobId, ordinal). */
export async function recordCrash(tx: Tx, c: CrashInput): Promise<{ bucketId: string; newBucket: boolean; duplicate: boolean }> {
  if (c.jobId) {
    const existing = await tx.crashReport.findUnique({ where: { jobId_ordinal: { jobId: c.jobId, ordinal: c.ordinal } }, select: { bucketId: true } });
    if (existing) return { bucketId: existing.bucketId, newBucket: false, duplicate: true };
  }
  const hits = Math.max(1, c.hits ?? 1);
  const rows = (await tx.$queryRawUnsafe(
    `INSERT INTO "CrashBucket" (id, "targetId", signature, kind, title, frames, count, "firstSeen", "lastSeen",
        "firstSeenVersion", "lastSeenVersion", "reproCommand", reproducer)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, now(), now(), $8, $8, $9, $10)
     ON CONFLICT ("targetId", signature) DO UPDATE SET
        count = "CrashBucket".count + EXCLUDED.count,
        "lastSeen" = now(),
        "lastSeenVersion" = EXCLUDED."lastSeenVersion",
        status = CASE WHEN "CrashBucket".status = 'fixed' THEN 'regressed' ELSE "CrashBucket".status END
     RETURNING id, (xmax = 0) AS inserted`,
    `b_${cryptoId()}`,
    c.targetId,
    c.signature,
    c.kind,
    c.title.slice(0, 300),
    JSON.stringify(c.frames),
    hits,
    c.targetVersion ?? null,
    c.reproCommand ?? null,
    c.input ?? null,
  )) as { id: string; inserted: boolean }[];
  const { id: bucketId, inserted } = rows[0]!;
  await tx.crashReport.create({
    data: {
      bucketId,
      campaignId: c.campaignId,
      jobId: c.jobId,
      ordinal: c.ordinal,
      kind: c.kind,
      message: c.message.slice(0, 2000),
      stack: c.stack.slice(0, 32_768),
      signature: c.signature,
      targetVersion: c.targetVersion,
      input: c.input ? new Uint8Array(c.input) : undefined,
      artifact: c.artifact as object,
      triage: c.triage as object,
    },
  });
  if (inserted) await tx.bucketEvent.create({ data: { bucketId, action: "created", detail: { signature: c.signature } } });
  return { bucketId, newBucket: inserted, duplicate: false };
}

function cryptoId(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, "").slice(0, 20);
}

/** Buckets of a target and kind, for similarity matching of a new crash. */
export async function bucketCandidates(db: Db, targetId: string, kind: string, limit = 500) {
  return db.prisma.crashBucket.findMany({
    where: { targetId, kind, mergedIntoId: null },
    select: { id: true, signature: true, kind: true, frames: true, title: true },
    orderBy: { lastSeen: "desc" },
    take: limit,
  });
}

export async function getBucket(db: Db, id: string) {
  return db.prisma.crashBucket.findUnique({
    where: { id },
    include: { target: true, reports: { orderBy: { createdAt: "asc" }, take: 5 }, events: { orderBy: { at: "asc" } } },
  });
}

export interface BucketFilter {
  targetId?: string;
  campaignId?: string;
  kind?: string;
  status?: string;
  limit?: number;
}

export async function listBuckets(db: Db, f: BucketFilter = {}) {
  return db.prisma.crashBucket.findMany({
    where: {
      mergedIntoId: null,
      ...(f.targetId ? { targetId: f.targetId } : {}),
      ...(f.kind ? { kind: f.kind } : {}),
      ...(f.status ? { status: f.status } : {}),
      ...(f.campaignId ? { reports: { some: { campaignId: f.campaignId } } } : {}),
    },
    orderBy: [{ count: "desc" }, { lastSeen: "desc" }],
    take: f.limit ?? 100,
    include: { target: { select: { name: true, version: true } } },
  });
}

export async function recordReproRate(db: Db, bucketId: string, runs: number, hits: number): Promise<void> {
  const label = runs === 0 ? "unknown" : hits === runs ? "reliable" : hits === 0 ? "unreproduced" : "flaky";
  await db.prisma.crashBucket.update({ where: { id: bucketId }, data: { reproRuns: runs, reproHits: hits, reproLabel: label } });
  await db.prisma.bucketEvent.create({ data: { bucketId, action: "repro", detail: { runs, hits, label } } });
}
