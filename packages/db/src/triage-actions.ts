// Manual triage of crash buckets: merge, split, status and notes. Every action
// writes BucketEvent rows (actor + detail) on each bucket it touches, and
// merges/splits write BucketRoute rows so that later reports follow the
// decision. Merges and splits hold the target's advisory lock exclusively, so
// no report is recorded half-way through one (see internal/triage-sql.ts).
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { pgSafe } from "./internal/pg-safe";
import type { Db } from "./client";
import { lockTargetExclusive, newBucketId, routingKeys, writeRoutes, type RawTx } from "./internal/triage-sql";

export const BUCKET_STATUSES = ["new", "confirmed", "fixed", "regressed", "ignored"] as const;
export type BucketStatus = (typeof BUCKET_STATUSES)[number];

/** Longest note kept, in characters. */
export const MAX_NOTE_LENGTH = 4000;

type Tx = Parameters<Parameters<Db["prisma"]["$transaction"]>[0]>[0];
const TX_OPTS = { timeout: 60_000, maxWait: 30_000 };

interface LockedBucket {
  id: string;
  targetId: string;
  signature: string;
  title: string;
  frames: unknown;
  count: number;
  status: string;
  mergedIntoId: string | null;
}

/** Take the target's exclusive lock, then lock and return the bucket rows (NOT_FOUND for unknown ids). */
async function lockBuckets(tx: Tx, ids: string[]): Promise<Map<string, LockedBucket>> {
  const heads = await tx.crashBucket.findMany({ where: { id: { in: ids } }, select: { id: true, targetId: true } });
  const missing = ids.filter((id) => !heads.some((h) => h.id === id));
  if (missing.length) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no crash bucket ${missing.join(", ")}`);
  const targets = [...new Set(heads.map((h) => h.targetId))];
  if (targets.length > 1) throw new FuzzFarmError("FF_ERR_CONFLICT", "buckets of different targets cannot be merged");
  await lockTargetExclusive(tx, targets[0]!);
  const rows = (await tx.$queryRawUnsafe(
    `SELECT id, "targetId", signature, title, frames, count, status, "mergedIntoId" FROM "CrashBucket" WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`,
    ids,
  )) as LockedBucket[];
  return new Map(rows.map((r) => [r.id, r]));
}

async function event(tx: Tx, bucketId: string, action: string, actor: string, detail: object) {
  await tx.bucketEvent.create({ data: { bucketId, action, actor, detail } });
}

/** Routing keys (signature and triage.ownSignature) of reports matching a WHERE clause on "CrashReport" r. */
async function reportKeys(tx: RawTx, where: string, ...params: unknown[]): Promise<Set<string>> {
  const rows = (await tx.$queryRawUnsafe(`SELECT DISTINCT r.signature, r.triage->>'ownSignature' AS own FROM "CrashReport" r WHERE ${where}`, ...params)) as {
    signature: string;
    own: string | null;
  }[];
  return new Set(rows.flatMap((r) => routingKeys(r.signature, r.own ? { ownSignature: r.own } : undefined)));
}

/** Of these keys, those that are the signature of a bucket outside `except` which is not merged away. */
async function liveBucketKeys(tx: RawTx, targetId: string, keys: string[], except: string[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const rows = (await tx.$queryRawUnsafe(
    `SELECT signature FROM "CrashBucket" WHERE "targetId" = $1 AND signature = ANY($2::text[]) AND "mergedIntoId" IS NULL AND NOT (id = ANY($3::text[]))`,
    targetId,
    keys,
    except,
  )) as { signature: string }[];
  return new Set(rows.map((r) => r.signature));
}

export interface MergeArgs {
  /** The bucket that remains. */
  into: string;
  /** Buckets merged into it; they keep their row with `mergedIntoId` set. */
  from: string[];
  actor: string;
}

/**
 * Merge buckets: their reports move to `into`, counts add up, first/last seen
 * widen, and later reports with their signatures land in `into`. Buckets
 * merged earlier into a source now point at `into` too.
 * FF_ERR_CONFLICT: merging into itself, across targets, from or into a merged-away bucket.
 */
export async function mergeBuckets(db: Db, a: MergeArgs): Promise<void> {
  const from = [...new Set(a.from)];
  if (!from.length) throw new FuzzFarmError("FF_ERR_VALIDATION", "merge needs at least one source bucket");
  if (from.includes(a.into)) throw new FuzzFarmError("FF_ERR_CONFLICT", `cannot merge bucket ${a.into} into itself`);
  await db.prisma.$transaction(async (tx) => {
    const b = await lockBuckets(tx, [a.into, ...from]);
    const into = b.get(a.into)!;
    if (into.mergedIntoId) throw new FuzzFarmError("FF_ERR_CONFLICT", `bucket ${into.id} was merged into ${into.mergedIntoId}; merge into that one`);
    for (const id of from) {
      const s = b.get(id)!;
      if (s.mergedIntoId) throw new FuzzFarmError("FF_ERR_CONFLICT", `bucket ${id} is already merged into ${s.mergedIntoId}`);
    }
    const targetId = into.targetId;

    // Routes: keys already routed to a source, the sources' own signatures, and report keys nobody else owns.
    await tx.$executeRawUnsafe(`UPDATE "BucketRoute" SET "bucketId" = $1, reason = 'merge', actor = $2, "createdAt" = now() WHERE "bucketId" = ANY($3::text[])`, a.into, a.actor, from);
    const sourceSigs = from.map((id) => b.get(id)!.signature);
    const keys = await reportKeys(tx, `r."bucketId" = ANY($1::text[])`, from);
    sourceSigs.forEach((s) => keys.delete(s));
    const owned = await liveBucketKeys(tx, targetId, [...keys], from);
    const routed = await tx.bucketRoute.findMany({ where: { targetId, signature: { in: [...keys] } }, select: { signature: true } });
    routed.forEach((r) => owned.add(r.signature));
    const extraKeys = [...keys].filter((k) => !owned.has(k));
    await writeRoutes(tx, targetId, [...sourceSigs, ...extraKeys], a.into, "merge", a.actor);

    const perSource = new Map<string, number>();
    for (const id of from) perSource.set(id, await tx.crashReport.count({ where: { bucketId: id } }));
    await tx.crashReport.updateMany({ where: { bucketId: { in: from } }, data: { bucketId: a.into } });
    await tx.crashBucket.updateMany({ where: { mergedIntoId: { in: from } }, data: { mergedIntoId: a.into } });
    const added = from.reduce((n, id) => n + b.get(id)!.count, 0);
    await tx.$executeRawUnsafe(
      `UPDATE "CrashBucket" t SET count = t.count + $2,
         "firstSeen" = LEAST(t."firstSeen", s.first), "lastSeen" = GREATEST(t."lastSeen", s.last),
         "firstSeenVersion" = CASE WHEN s.first < t."firstSeen" AND s."firstVersion" IS NOT NULL THEN s."firstVersion" ELSE COALESCE(t."firstSeenVersion", s."firstVersion") END,
         "lastSeenVersion" = CASE WHEN s.last > t."lastSeen" AND s."lastVersion" IS NOT NULL THEN s."lastVersion" ELSE COALESCE(t."lastSeenVersion", s."lastVersion") END,
         reproducer = COALESCE(t.reproducer, s.reproducer), minimized = COALESCE(t.minimized, s.minimized),
         "reproCommand" = COALESCE(t."reproCommand", s."reproCommand")
       FROM (SELECT min("firstSeen") AS first, max("lastSeen") AS last,
               (array_agg("firstSeenVersion" ORDER BY "firstSeen") FILTER (WHERE "firstSeenVersion" IS NOT NULL))[1] AS "firstVersion",
               (array_agg("lastSeenVersion" ORDER BY "lastSeen" DESC) FILTER (WHERE "lastSeenVersion" IS NOT NULL))[1] AS "lastVersion",
               (array_agg(reproducer ORDER BY "firstSeen") FILTER (WHERE reproducer IS NOT NULL))[1] AS reproducer,
               (array_agg(minimized ORDER BY "firstSeen") FILTER (WHERE minimized IS NOT NULL))[1] AS minimized,
               (array_agg("reproCommand" ORDER BY "firstSeen") FILTER (WHERE "reproCommand" IS NOT NULL))[1] AS "reproCommand"
             FROM "CrashBucket" WHERE id = ANY($3::text[])) s
       WHERE t.id = $1`,
      a.into,
      added,
      from,
    );
    await tx.crashBucket.updateMany({ where: { id: { in: from } }, data: { mergedIntoId: a.into, count: 0 } });

    const routedKeys = [...sourceSigs, ...extraKeys];
    await event(tx, a.into, "merged", a.actor, {
      from: from.map((id) => ({ id, signature: b.get(id)!.signature, count: b.get(id)!.count, reports: perSource.get(id) })),
      countAdded: added,
      routed: routedKeys,
    });
    for (const id of from) await event(tx, id, "merged", a.actor, { into: a.into, count: b.get(id)!.count, reports: perSource.get(id) });
  }, TX_OPTS);
}

export interface SplitArgs {
  bucketId: string;
  /** Reports moved to the new bucket; all must belong to `bucketId`, and at least one must stay. */
  reportIds: string[];
  actor: string;
  /** Title of the new bucket. Default: the source title + " (split)". */
  title?: string;
}

/**
 * Move reports to a new bucket. Counts move with the reports' hits. Later
 * reports follow: the signatures and own signatures of the moved reports are
 * routed to the new bucket, except the source's own signature while some of
 * its reports stay, and signatures that key another live bucket.
 */
export async function splitBucket(db: Db, a: SplitArgs): Promise<{ newBucketId: string }> {
  const reportIds = [...new Set(a.reportIds)];
  if (!reportIds.length) throw new FuzzFarmError("FF_ERR_VALIDATION", "split needs at least one report");
  return db.prisma.$transaction(async (tx) => {
    const src = (await lockBuckets(tx, [a.bucketId])).get(a.bucketId)!;
    if (src.mergedIntoId) throw new FuzzFarmError("FF_ERR_CONFLICT", `bucket ${src.id} is merged into ${src.mergedIntoId}; split that one`);
    const reports = await tx.crashReport.findMany({
      where: { id: { in: reportIds } },
      select: { id: true, bucketId: true, kind: true, createdAt: true, targetVersion: true, hits: true, input: true, signature: true, triage: true },
      orderBy: { createdAt: "asc" },
    });
    const missing = reportIds.filter((id) => !reports.some((r) => r.id === id));
    if (missing.length) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no crash report ${missing.join(", ")}`);
    const foreign = reports.filter((r) => r.bucketId !== src.id);
    if (foreign.length) throw new FuzzFarmError("FF_ERR_CONFLICT", `report ${foreign[0]!.id} is not in bucket ${src.id}`);
    const remaining = await tx.crashReport.count({ where: { bucketId: src.id, id: { notIn: reportIds } } });
    if (remaining === 0) throw new FuzzFarmError("FF_ERR_CONFLICT", `splitting every report out of ${src.id} would leave it empty`);

    const moved = new Set(reports.flatMap((r) => routingKeys(r.signature, r.triage)));
    const kept = await reportKeys(tx, `r."bucketId" = $1 AND NOT (r.id = ANY($2::text[]))`, src.id, reportIds);
    const owned = await liveBucketKeys(tx, src.targetId, [...moved], [src.id]);
    // The source's own key follows only if none of its reports stay; any other key the moved reports carry
    // follows the split even if some reports of it stay (not chosen, or recorded while the user decided).
    const routedKeys = [...moved].filter((k) => !owned.has(k) && (k !== src.signature || !kept.has(k)));

    const newId = newBucketId();
    const first = reports[0]!;
    const last = reports[reports.length - 1]!;
    const wanted = routedKeys[0] ?? first.signature;
    const taken = await tx.crashBucket.findUnique({ where: { targetId_signature: { targetId: src.targetId, signature: wanted } }, select: { id: true } });
    const signature = taken ? `${wanted}~split-${newId.slice(2, 10)}` : wanted;
    const hits = reports.reduce((n, r) => n + r.hits, 0);
    await tx.crashBucket.create({
      data: {
        id: newId,
        targetId: src.targetId,
        signature,
        kind: first.kind,
        title: (a.title?.trim() || `${src.title} (split)`).slice(0, 300),
        frames: src.frames as object,
        count: hits,
        firstSeen: first.createdAt,
        lastSeen: last.createdAt,
        firstSeenVersion: first.targetVersion,
        lastSeenVersion: last.targetVersion,
        reproducer: reports.find((r) => r.input)?.input ?? null,
      },
    });
    await tx.crashReport.updateMany({ where: { id: { in: reportIds } }, data: { bucketId: newId } });
    await tx.$executeRawUnsafe(
      `UPDATE "CrashBucket" b SET count = GREATEST(b.count - $2, 0),
         "firstSeen" = s.first, "lastSeen" = s.last, "firstSeenVersion" = COALESCE(s."firstVersion", b."firstSeenVersion"),
         "lastSeenVersion" = COALESCE(s."lastVersion", b."lastSeenVersion")
       FROM (SELECT min("createdAt") AS first, max("createdAt") AS last,
               (array_agg("targetVersion" ORDER BY "createdAt") FILTER (WHERE "targetVersion" IS NOT NULL))[1] AS "firstVersion",
               (array_agg("targetVersion" ORDER BY "createdAt" DESC) FILTER (WHERE "targetVersion" IS NOT NULL))[1] AS "lastVersion"
             FROM "CrashReport" WHERE "bucketId" = $1) s
       WHERE b.id = $1`,
      src.id,
      hits,
    );
    await writeRoutes(tx, src.targetId, routedKeys, newId, "split", a.actor);
    await event(tx, src.id, "split", a.actor, { newBucketId: newId, reportIds, hits, routed: routedKeys });
    await event(tx, newId, "split", a.actor, { from: src.id, reportIds, hits, routed: routedKeys });
    return { newBucketId: newId };
  }, TX_OPTS);
}

export interface StatusArgs {
  bucketId: string;
  status: BucketStatus;
  actor: string;
  /** For "fixed": the target version carrying the fix (stored as fixedVersion). */
  version?: string;
}

/** Set a bucket's status (any of BUCKET_STATUSES); a no-op when unchanged. */
export async function setBucketStatus(db: Db, a: StatusArgs): Promise<{ from: string; to: BucketStatus }> {
  if (!(BUCKET_STATUSES as readonly string[]).includes(a.status))
    throw new FuzzFarmError("FF_ERR_VALIDATION", `status must be one of ${BUCKET_STATUSES.join(", ")}, not "${a.status}"`);
  return db.prisma.$transaction(async (tx) => {
    const rows = (await tx.$queryRawUnsafe(`SELECT status, "mergedIntoId" FROM "CrashBucket" WHERE id = $1 FOR UPDATE`, a.bucketId)) as {
      status: string;
      mergedIntoId: string | null;
    }[];
    if (!rows.length) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no crash bucket ${a.bucketId}`);
    const { status: from, mergedIntoId } = rows[0]!;
    if (mergedIntoId) throw new FuzzFarmError("FF_ERR_CONFLICT", `bucket ${a.bucketId} is merged into ${mergedIntoId}; change that one`);
    if (from === a.status) return { from, to: a.status };
    await tx.crashBucket.update({
      where: { id: a.bucketId },
      data: { status: a.status, ...(a.status === "fixed" ? { fixedVersion: a.version ?? null } : {}) },
    });
    await event(tx, a.bucketId, "status", a.actor, { from, to: a.status, ...(a.version ? { version: a.version } : {}) });
    return { from, to: a.status };
  }, TX_OPTS);
}

/** Add a note: the bucket shows the latest one, the events keep them all. */
export async function addBucketNote(db: Db, a: { bucketId: string; note: string; actor: string }): Promise<void> {
  const note = pgSafe(a.note.trim());
  if (!note) throw new FuzzFarmError("FF_ERR_VALIDATION", "a note cannot be empty");
  if (note.length > MAX_NOTE_LENGTH) throw new FuzzFarmError("FF_ERR_VALIDATION", `a note is at most ${MAX_NOTE_LENGTH} characters`);
  await db.prisma.$transaction(async (tx) => {
    const n = await tx.crashBucket.updateMany({ where: { id: a.bucketId }, data: { note } });
    if (n.count === 0) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no crash bucket ${a.bucketId}`);
    await event(tx, a.bucketId, "note", a.actor, { note });
  }, TX_OPTS);
}
