// Bucket lifecycle: new -> confirmed -> fixed -> regressed, or ignored.
// "fixed" comes from a repro run on a newer target version that no longer hits
// the crash; recordCrash turns fixed into regressed when the crash comes back
// (but not for reports from an old version that was known to crash before the
// fix). Ignored buckets keep counting and stay ignored.
import { FuzzFarmError } from "@fuzzfarm/protocol";
import type { Db } from "./client";

export interface NotReproducedArgs {
  bucketId: string;
  /** Target version the repro runs used. */
  targetVersion: string;
  runs: number;
  hits: number;
  /** Default "system". */
  actor?: string;
}

export interface LifecycleOutcome {
  status: string;
  changed: boolean;
  /** Why the status did or did not change, one line. */
  reason: string;
}

/**
 * Repro runs of a bucket on `targetVersion`: with no hit, and a version in which
 * the crash was never reported (and not older than its last-seen version, when
 * both versions are known Target rows), the bucket becomes fixed there. A hit on
 * a fixed bucket makes it regressed. Ignored buckets stay ignored.
 */
export async function markFixedIfNotReproduced(db: Db, a: NotReproducedArgs): Promise<LifecycleOutcome> {
  if (!Number.isInteger(a.runs) || a.runs < 1 || !Number.isInteger(a.hits) || a.hits < 0 || a.hits > a.runs)
    throw new FuzzFarmError("FF_ERR_VALIDATION", `runs must be a positive integer and hits an integer in 0..runs (got ${a.runs}, ${a.hits})`);
  const actor = a.actor ?? "system";
  return db.prisma.$transaction(async (tx) => {
    const rows = (await tx.$queryRawUnsafe(
      `SELECT b.status, b."mergedIntoId", b."lastSeenVersion", t.name FROM "CrashBucket" b JOIN "Target" t ON t.id = b."targetId" WHERE b.id = $1 FOR UPDATE OF b`,
      a.bucketId,
    )) as { status: string; mergedIntoId: string | null; lastSeenVersion: string | null; name: string }[];
    if (!rows.length) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no crash bucket ${a.bucketId}`);
    const b = rows[0]!;
    if (b.mergedIntoId) throw new FuzzFarmError("FF_ERR_CONFLICT", `bucket ${a.bucketId} is merged into ${b.mergedIntoId}`);
    const keep = (reason: string): LifecycleOutcome => ({ status: b.status, changed: false, reason });
    const change = async (to: string, reason: string): Promise<LifecycleOutcome> => {
      await tx.crashBucket.update({ where: { id: a.bucketId }, data: { status: to, ...(to === "fixed" ? { fixedVersion: a.targetVersion } : {}) } });
      await tx.bucketEvent.create({
        data: { bucketId: a.bucketId, action: "status", actor, detail: { from: b.status, to, version: a.targetVersion, runs: a.runs, hits: a.hits, reason } },
      });
      return { status: to, changed: true, reason };
    };

    if (b.status === "ignored") return keep("ignored buckets stay ignored");
    if (a.hits > 0) {
      const why = `reproduced ${a.hits}/${a.runs} on ${a.targetVersion}`;
      return b.status === "fixed" ? change("regressed", why) : keep(why);
    }
    if (b.status === "fixed") return keep("already fixed");
    const seen = await tx.crashReport.count({ where: { bucketId: a.bucketId, targetVersion: a.targetVersion } });
    if (seen > 0) return keep(`crashed on ${a.targetVersion} before (${seen} reports): flaky there, not fixed`);
    if (b.lastSeenVersion && b.lastSeenVersion !== a.targetVersion) {
      const versions = await tx.target.findMany({ where: { name: b.name, version: { in: [a.targetVersion, b.lastSeenVersion] } }, select: { version: true, createdAt: true } });
      const probe = versions.find((v) => v.version === a.targetVersion);
      const last = versions.find((v) => v.version === b.lastSeenVersion);
      if (probe && last && probe.createdAt <= last.createdAt) return keep(`${a.targetVersion} is not newer than ${b.lastSeenVersion}, where it last crashed`);
    }
    return change("fixed", `not reproduced in ${a.runs} runs on ${a.targetVersion}`);
  }, { timeout: 30_000, maxWait: 30_000 });
}

export interface VersionSeen {
  /** Target version of the reports; null for reports without one. */
  version: string | null;
  firstSeen: Date;
  lastSeen: Date;
  reports: number;
  hits: number;
}

/** First/last seen, reports and hits of a bucket per target version, oldest first. */
export async function bucketVersions(db: Db, bucketId: string): Promise<VersionSeen[]> {
  return (await db.prisma.$queryRawUnsafe(
    `SELECT "targetVersion" AS version, min("createdAt") AS "firstSeen", max("createdAt") AS "lastSeen", count(*)::int AS reports, sum(hits)::int AS hits
     FROM "CrashReport" WHERE "bucketId" = $1 GROUP BY "targetVersion" ORDER BY min("createdAt")`,
    bucketId,
  )) as VersionSeen[];
}
