// Crash reports and buckets. The bucket row is created or bumped with one
// INSERT ... ON CONFLICT statement, so any number of concurrent reporters of
// the same new crash produce exactly one bucket with the exact count; the
// report's unique (jobId, ordinal) key makes a re-delivered result a no-op.
//
// Before that upsert a report follows the user's triage decisions: a route
// written by a merge or split (BucketRoute) wins over the signature's own
// bucket. Recording holds the target's advisory lock in shared mode, merges
// and splits hold it exclusively (see internal/triage-sql.ts). A campaign
// that opens too many buckets too fast is throttled (see flood.ts).
import type { Db } from "./client";
import { pgSafe } from "./internal/pg-safe";
import { claimBucketSlot, countThrottled, crashSite, floodSignature, floodWindowStart, FLOOD_DEFAULTS, type FloodOptions } from "./flood";
import { lockTargetShared, newBucketId, routeFor, routingKeys } from "./internal/triage-sql";

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
  /**
   * Flood throttling of new buckets per campaign (only applies when campaignId is set).
   * Default: on, with FLOOD_DEFAULTS (50 new buckets per 60 s window); `false` turns it off.
   */
  flood?: FloodOptions | false;
}

type Tx = Pick<Db["prisma"], "$queryRawUnsafe" | "$executeRawUnsafe" | "crashReport" | "bucketEvent">;

export interface RecordedCrash {
  bucketId: string;
  newBucket: boolean;
  duplicate: boolean;
  /** The report was grouped into a flood bucket of this crash site. */
  floodSite?: string;
}

/**
 * Record one crash report; returns its bucket id and whether the bucket is new. Idempotent per (jobId, ordinal).
 * Given the root client it runs in its own transaction; given a transaction client it joins it.
 */
export async function recordCrash(tx: Tx, c: CrashInput): Promise<RecordedCrash> {
  c = pgSafe(c);
  const root = tx as Partial<Pick<Db["prisma"], "$transaction">>;
  if (typeof root.$transaction === "function") {
    return (root as Db["prisma"]).$transaction((t) => recordCrashIn(t, c), { timeout: 30_000, maxWait: 30_000 });
  }
  return recordCrashIn(tx, c);
}

const UPSERT = `INSERT INTO "CrashBucket" (id, "targetId", signature, kind, title, frames, count, "firstSeen", "lastSeen",
    "firstSeenVersion", "lastSeenVersion", "reproCommand", reproducer, note)
  VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, now(), now(), $8, $8, $9, $10, $11)
  ON CONFLICT ("targetId", signature) DO UPDATE SET
    count = "CrashBucket".count + EXCLUDED.count,
    "lastSeen" = now(),
    "firstSeenVersion" = COALESCE("CrashBucket"."firstSeenVersion", EXCLUDED."firstSeenVersion"),
    "lastSeenVersion" = COALESCE(EXCLUDED."lastSeenVersion", "CrashBucket"."lastSeenVersion")
  RETURNING id, (xmax = 0) AS inserted`;

const BUMP = `UPDATE "CrashBucket" SET count = count + $2, "lastSeen" = now(),
    "firstSeenVersion" = COALESCE("firstSeenVersion", $3), "lastSeenVersion" = COALESCE($3, "lastSeenVersion")
  WHERE id = $1`;

/**
 * fixed -> regressed on a new report, unless the report comes from an old
 * version the crash was already seen in before it was fixed in `fixedVersion`
 * (a campaign still running the old build is no regression).
 */
const REGRESS = `UPDATE "CrashBucket" b SET status = 'regressed'
  WHERE b.id = $1 AND b.status = 'fixed' AND NOT (
    $2::text IS NOT NULL AND b."fixedVersion" IS NOT NULL AND $2::text <> b."fixedVersion"
    AND EXISTS (SELECT 1 FROM "CrashReport" r WHERE r."bucketId" = b.id AND r."targetVersion" = $2::text AND r.id <> $3))
  RETURNING b."fixedVersion"`;

async function recordCrashIn(tx: Tx, c: CrashInput): Promise<RecordedCrash> {
  await lockTargetShared(tx, c.targetId);
  if (c.jobId) {
    const existing = await tx.crashReport.findUnique({ where: { jobId_ordinal: { jobId: c.jobId, ordinal: c.ordinal } }, select: { bucketId: true } });
    if (existing) return { bucketId: existing.bucketId, newBucket: false, duplicate: true };
  }
  const hits = Math.max(1, c.hits ?? 1);
  const version = c.targetVersion ?? null;
  // An existing bucket is bumped at the end, so its row lock is held only until commit, not for the whole insert.
  let bucketId = (await routeFor(tx, c.targetId, routingKeys(c.signature, c.triage))) ?? (await bucketByKey(tx, c.targetId, c.signature));
  let inserted = false;
  let floodSite: string | undefined;
  const flood = c.flood === false || !c.campaignId ? null : { ...FLOOD_DEFAULTS, ...c.flood, now: c.flood?.now ?? new Date() };
  let upserted = false;
  if (!bucketId) {
    let signature = c.signature;
    let title = c.title;
    let note: string | null = null;
    if (flood && c.campaignId && !(await claimBucketSlot(tx, c.campaignId, flood))) {
      floodSite = crashSite(c.frames);
      signature = floodSignature(floodSite);
      title = `Flood: new crash signatures at ${floodSite}`;
      note =
        `More than ${flood.cap} new crash signatures within ${flood.windowMs / 1000} s: further new signatures whose first frame is ` +
        `${floodSite} are grouped here. Each report keeps its own signature; split reports out to give them their own bucket.`;
      bucketId = await bucketByKey(tx, c.targetId, signature);
    }
    if (!bucketId) {
      const rows = (await tx.$queryRawUnsafe(
        UPSERT,
        newBucketId(),
        c.targetId,
        signature,
        c.kind,
        title.slice(0, 300),
        JSON.stringify(c.frames),
        hits,
        version,
        c.reproCommand ?? null,
        c.input ?? null,
        note,
      )) as { id: string; inserted: boolean }[];
      bucketId = rows[0]!.id;
      inserted = rows[0]!.inserted;
      upserted = true;
    }
  }
  const report = await tx.crashReport.create({
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
      hits,
    },
    select: { id: true },
  });
  if (inserted) await tx.bucketEvent.create({ data: { bucketId, action: "created", detail: { signature: floodSite ? floodSignature(floodSite) : c.signature } } });
  if (!upserted) await tx.$executeRawUnsafe(BUMP, bucketId, hits, version);
  // After the bucket row is locked by the bump or upsert, so concurrent flood reports write one event.
  if (floodSite && flood && c.campaignId) {
    await noteFlood(tx, bucketId, c.campaignId, floodSite, flood);
    await countThrottled(tx, c.campaignId, floodSite, flood);
  }
  const regressed = (await tx.$queryRawUnsafe(REGRESS, bucketId, version, report.id)) as { fixedVersion: string | null }[];
  if (regressed.length) {
    await tx.bucketEvent.create({
      data: { bucketId, action: "status", detail: { from: "fixed", to: "regressed", version, fixedVersion: regressed[0]!.fixedVersion, reportId: report.id } },
    });
  }
  return { bucketId, newBucket: inserted, duplicate: false, ...(floodSite ? { floodSite } : {}) };
}

async function bucketByKey(tx: Tx, targetId: string, signature: string): Promise<string | null> {
  const rows = (await tx.$queryRawUnsafe(`SELECT id FROM "CrashBucket" WHERE "targetId" = $1 AND signature = $2`, targetId, signature)) as { id: string }[];
  return rows[0]?.id ?? null;
}

/** One `flood` event per flood bucket, campaign and window, explaining why reports are grouped there. */
async function noteFlood(tx: Tx, bucketId: string, campaignId: string, site: string, f: Required<Pick<FloodOptions, "windowMs" | "cap" | "now">>) {
  const windowStart = floodWindowStart(f.now, f.windowMs).toISOString();
  const rows = (await tx.$queryRawUnsafe(
    `SELECT 1 FROM "BucketEvent" WHERE "bucketId" = $1 AND action = 'flood' AND detail @> $2::jsonb LIMIT 1`,
    bucketId,
    JSON.stringify({ campaignId, windowStart }),
  )) as unknown[];
  if (rows.length) return;
  await tx.bucketEvent.create({
    data: {
      bucketId,
      action: "flood",
      detail: {
        campaignId,
        windowStart,
        site,
        cap: f.cap,
        windowMs: f.windowMs,
        reason: `campaign opened ${f.cap} new buckets within ${f.windowMs / 1000} s; further new signatures at ${site} are grouped here`,
      },
    },
  });
}

/** Buckets of a target and kind, for similarity matching of a new crash, with the message of their first report. */
export async function bucketCandidates(db: Db, targetId: string, kind: string, limit = 500) {
  const rows = await db.prisma.crashBucket.findMany({
    where: { targetId, kind, mergedIntoId: null },
    select: { id: true, signature: true, kind: true, frames: true, title: true, reports: { select: { message: true, triage: true }, orderBy: { createdAt: "asc" }, take: 1 } },
    orderBy: { lastSeen: "desc" },
    take: limit,
  });
  // The first report's normalized message as triage computed it (same function as for the new crash).
  return rows.map(({ reports, ...b }) => ({
    ...b,
    message: reports[0]?.message ?? "",
    normalizedMessage: (reports[0]?.triage as { normalizedMessage?: string } | null)?.normalizedMessage,
  }));
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

export interface ReproThresholds {
  /** Smallest hit ratio labelled "reliable". Default 1 (every run hit the crash). */
  reliableAt?: number;
}

/** reliable / flaky / unreproduced label of a reproduction rate; "unknown" before any run. */
export function reproLabel(runs: number, hits: number, t: ReproThresholds = {}): "reliable" | "flaky" | "unreproduced" | "unknown" {
  if (runs <= 0) return "unknown";
  if (hits <= 0) return "unreproduced";
  return hits / runs >= (t.reliableAt ?? 1) ? "reliable" : "flaky";
}

export async function recordReproRate(db: Db, bucketId: string, runs: number, hits: number, t: ReproThresholds = {}): Promise<void> {
  const label = reproLabel(runs, hits, t);
  await db.prisma.crashBucket.update({ where: { id: bucketId }, data: { reproRuns: runs, reproHits: hits, reproLabel: label } });
  await db.prisma.bucketEvent.create({ data: { bucketId, action: "repro", detail: { runs, hits, label } } });
}
