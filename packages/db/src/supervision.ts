// What the coordinator and the CLI read and write while they supervise
// campaigns: campaign status and deadline, open job counts, cancelling
// queued jobs, a job's payload for a retry, the buckets a campaign reported
// and a bucket's first report. Named here so that no Prisma query lives
// outside this package.
import type { Db } from "./client";

/** A campaign with its target, or null when there is none with that id. */
export async function findCampaign(db: Db, id: string) {
  return db.prisma.campaign.findUnique({ where: { id }, include: { target: true } });
}

/** A campaign's status (running / completed / stopped / failed), or null when there is none with that id. */
export async function campaignStatus(db: Db, id: string): Promise<string | null> {
  const c = await db.prisma.campaign.findUnique({ where: { id }, select: { status: true } });
  return c?.status ?? null;
}

/** Bring a campaign's deadline to `at` (default now): the supervisor winds it down at its next tick. */
export async function moveDeadline(db: Db, id: string, at = new Date()): Promise<void> {
  await db.prisma.campaign.update({ where: { id }, data: { deadline: at } });
}

export interface CampaignListFilter {
  /** Every campaign, not only running ones and those ended within `endedWithinMs`. Default false. */
  all?: boolean;
  /** Default one hour. */
  endedWithinMs?: number;
  /** Default 20. */
  take?: number;
}

/** Recent campaigns, newest first: running ones and those that ended within the window (or all). */
export async function recentCampaigns(db: Db, f: CampaignListFilter = {}) {
  const since = new Date(Date.now() - (f.endedWithinMs ?? 3600_000));
  return db.prisma.campaign.findMany({
    where: f.all ? {} : { OR: [{ status: "running" }, { endedAt: { gte: since } }] },
    orderBy: { startedAt: "desc" },
    take: f.take ?? 20,
  });
}

/** Buckets the campaign filed reports in, most reported first. */
export async function campaignBuckets(db: Db, campaignId: string) {
  const ids = await db.prisma.crashReport.findMany({ where: { campaignId }, distinct: ["bucketId"], select: { bucketId: true } });
  return db.prisma.crashBucket.findMany({ where: { id: { in: ids.map((b) => b.bucketId) } }, orderBy: { count: "desc" } });
}

/** Jobs of a campaign still queued: fuzz jobs, or maintenance (replay / minimize) jobs. */
export async function countOpenJobs(db: Db, campaignId: string, kind: "fuzz" | "maintenance"): Promise<number> {
  return db.prisma.job.count({ where: { campaignId, status: "queued", kind: kind === "fuzz" ? "fuzz" : { not: "fuzz" } } });
}

/** How many of these jobs are no longer queued (done, failed or cancelled); ids without a row do not count. */
export async function countFinishedJobs(db: Db, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  return db.prisma.job.count({ where: { id: { in: ids }, status: { not: "queued" } } });
}

/** Cancel a job that no worker took: only a still-queued row changes. Returns whether it did. */
export async function cancelQueuedJob(db: Db, id: string): Promise<boolean> {
  const r = await db.prisma.job.updateMany({ where: { id, status: "queued" }, data: { status: "cancelled", finishedAt: new Date() } });
  return r.count > 0;
}

/** The payload a job row was planned with (to retry it), or null when there is no such job. */
export async function jobPayload(db: Db, id: string): Promise<unknown | null> {
  const j = await db.prisma.job.findUnique({ where: { id }, select: { payload: true } });
  return j ? j.payload : null;
}

/** Fuzz jobs of a campaign that a worker finished, with and without an error. */
export async function finishedFuzzJobs(db: Db, campaignId: string): Promise<{ clean: number; failed: number }> {
  const groups = await db.prisma.job.groupBy({ by: ["error"], where: { campaignId, kind: "fuzz", status: "done" }, _count: { _all: true } });
  const clean = groups.find((g) => g.error === null)?._count._all ?? 0;
  const failed = groups.reduce((n, g) => n + (g.error === null ? 0 : g._count._all), 0);
  return { clean, failed };
}

/** A bucket with its target and its first report (with that report's campaign), or null when the bucket is gone. */
export async function bucketWithFirstReport(db: Db, bucketId: string) {
  return db.prisma.crashBucket.findUnique({
    where: { id: bucketId },
    include: { target: true, reports: { orderBy: { createdAt: "asc" }, take: 1, include: { campaign: true } } },
  });
}

/**
 * Why a campaign failed, one line: "F of N jobs failed: <error>", N the fuzz jobs a worker finished and
 * <error> the commonest target error among them (the target does not exist or does not load), or the
 * commonest error when none is a target error. Undefined when no finished job failed.
 */
export async function campaignFailureReason(db: Db, campaignId: string): Promise<string | undefined> {
  const groups = await db.prisma.job.groupBy({ by: ["error"], where: { campaignId, kind: "fuzz", status: "done" }, _count: { _all: true } });
  const done = groups.reduce((n, g) => n + g._count._all, 0);
  const errors = groups.filter((g) => g.error !== null).sort((a, b) => b._count._all - a._count._all || a.error!.localeCompare(b.error!));
  if (!errors.length) return undefined;
  const failed = errors.reduce((n, g) => n + g._count._all, 0);
  const shown = errors.find((g) => g.error!.startsWith("target-")) ?? errors[0]!;
  return `${failed} of ${done} jobs failed: ${shown.error}`;
}
