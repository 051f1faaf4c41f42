// Targets, campaigns and job rows.
import type { Db } from "./client";
import { FuzzFarmError, type CampaignEndStatus, type EngineName } from "@fuzzfarm/protocol";
import { campaignFailureReason, campaignStatus, finishedFuzzJobs } from "./supervision";

export interface TargetInput {
  name: string;
  engine: EngineName;
  path: string;
  version?: string;
}

export async function upsertTarget(db: Db, t: TargetInput) {
  const version = t.version ?? "unversioned";
  return db.prisma.target.upsert({
    where: { name_version: { name: t.name, version } },
    create: { name: t.name, engine: t.engine, path: t.path, version },
    update: { path: t.path, engine: t.engine },
  });
}

/**
 * The Target row that holds a program's crash buckets: the oldest row with the
 * same name and path. A Target row is one version of a program, but a bug that
 * survives a commit is the same bug: its reports on later versions join the
 * bucket opened on the first one (the bucket's lifecycle tracks versions:
 * lastSeenVersion, fixedVersion, regressed), instead of a new bucket per commit.
 */
export async function bucketTargetId(db: Db, t: { id: string; name: string; path: string }): Promise<string> {
  const home = await db.prisma.target.findFirst({ where: { name: t.name, path: t.path }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true } });
  return home?.id ?? t.id;
}

export interface CampaignInput {
  targetId: string;
  engine: EngineName;
  config: Record<string, unknown>;
  deadline: Date;
}

export async function createCampaign(db: Db, c: CampaignInput) {
  return db.prisma.campaign.create({
    data: { targetId: c.targetId, engine: c.engine, config: c.config as object, deadline: c.deadline },
  });
}

export async function getCampaign(db: Db, id: string) {
  const c = await db.prisma.campaign.findUnique({ where: { id }, include: { target: true } });
  if (!c) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no campaign ${id}`);
  return c;
}

export async function runningCampaigns(db: Db) {
  return db.prisma.campaign.findMany({ where: { status: "running" }, include: { target: true } });
}

/** End a running campaign; returns false when it was not running (another coordinator or path ended it first). */
export async function endCampaign(db: Db, id: string, status: CampaignEndStatus): Promise<boolean> {
  const r = await db.prisma.campaign.updateMany({ where: { id, status: "running" }, data: { status, endedAt: new Date() } });
  return r.count > 0;
}

/**
 * How a campaign ends (or ended): "failed" when a job error ended it early, or when every fuzz job a
 * worker finished reported an error (target missing or unloadable, bad job),
 * with the commonest error as the reason; "completed" otherwise. A campaign
 * in which no job finished is not failed: on a busy farm the workers may have
 * been on other jobs for the whole time box (`warning` says so).
 */
export async function campaignOutcome(db: Db, id: string): Promise<{ status: "completed" | "failed"; reason?: string; warning?: string }> {
  // Ended early by a job error handler (a target that does not load): failed, whatever the other jobs did.
  if ((await campaignStatus(db, id)) === "failed") return { status: "failed", reason: (await campaignFailureReason(db, id)) ?? "no job of it ran" };
  const { clean, failed } = await finishedFuzzJobs(db, id);
  if (clean === 0 && failed > 0) return { status: "failed", reason: await campaignFailureReason(db, id) };
  if (clean === 0) return { status: "completed", warning: "no worker finished a job of this campaign in its time box" };
  return { status: "completed" };
}

/** Reserve `n` job sequence numbers atomically; returns the first. */
export async function reserveJobSeq(db: Db, campaignId: string, n: number): Promise<number> {
  const c = await db.prisma.campaign.update({ where: { id: campaignId }, data: { jobSeq: { increment: n } }, select: { jobSeq: true } });
  return c.jobSeq - n;
}

export interface JobRowInput {
  id: string;
  campaignId: string;
  kind: string;
  payload: unknown;
}

/** Insert job rows; re-inserting the same id is a no-op (enqueue is idempotent). */
export async function insertJobs(db: Db, jobs: JobRowInput[]): Promise<void> {
  if (!jobs.length) return;
  await db.prisma.job.createMany({
    data: jobs.map((j) => ({ id: j.id, campaignId: j.campaignId, kind: j.kind, payload: j.payload as object })),
    skipDuplicates: true,
  });
}

/** A queued job that will not run (its result was refused): failed with the reason. */
export async function markJobFailed(db: Db, jobId: string, error: string): Promise<void> {
  await db.prisma.job.updateMany({ where: { id: jobId, status: "queued" }, data: { status: "failed", error, finishedAt: new Date() } });
}

/** Jobs of a campaign not yet done: the coordinator re-enqueues them after a restart (BullMQ dedups by id). */
export async function openJobs(db: Db, campaignId: string) {
  return db.prisma.job.findMany({ where: { campaignId, status: "queued" }, orderBy: { queuedAt: "asc" } });
}
