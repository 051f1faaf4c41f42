// Results of maintenance jobs (replay, minimize), applied exactly once like
// fuzz results: the job row flips to done once, or the delivery is ignored.
import type { Minimized } from "@fuzzfarm/protocol";
import type { Db } from "./client";
import { recordReproRate } from "./crashes";

async function claimJob(db: Db, jobId: string, workerId: string, execs: number, busyMs: number, error?: string): Promise<boolean> {
  const r = await db.prisma.job.updateMany({
    where: { id: jobId, status: { not: "done" } },
    data: { status: "done", finishedAt: new Date(), workerId, execs, busyMs: Math.round(busyMs), error: error ?? null },
  });
  return r.count === 1;
}

/**
 * What the job row says a result may apply to: its campaign, kind and (replay / minimize) bucket. A result names
 * its job; everything else the coordinator reads here, never from the result. Null when there is no such job.
 */
export async function jobOfResult(db: Db, jobId: string): Promise<{ campaignId: string; kind: string; status: string; bucketId: string | null } | null> {
  const j = await db.prisma.job.findUnique({ where: { id: jobId }, select: { campaignId: true, kind: true, status: true, payload: true } });
  if (!j) return null;
  const p = j.payload as { bucketId?: unknown } | null;
  return { campaignId: j.campaignId, kind: j.kind, status: j.status, bucketId: typeof p?.bucketId === "string" ? p.bucketId : null };
}

export interface ReplayApplied {
  duplicate: boolean;
  runs: number;
  hits: number;
}

/** Store a bucket's reproduction rate; a new bucket that reproduced at least once becomes "confirmed". */
export async function applyReplay(
  db: Db,
  a: { jobId: string; workerId: string; bucketId: string; runs: number; hits: number; busyMs: number; error?: string },
): Promise<ReplayApplied> {
  if (!(await claimJob(db, a.jobId, a.workerId, a.runs, a.busyMs, a.error))) return { duplicate: true, runs: a.runs, hits: a.hits };
  if (a.error) return { duplicate: false, runs: 0, hits: 0 };
  await recordReproRate(db, a.bucketId, a.runs, a.hits);
  if (a.hits > 0) {
    const moved = await db.prisma.crashBucket.updateMany({ where: { id: a.bucketId, status: "new" }, data: { status: "confirmed" } });
    if (moved.count) await db.prisma.bucketEvent.create({ data: { bucketId: a.bucketId, action: "status", detail: { from: "new", to: "confirmed", why: `reproduced ${a.hits}/${a.runs}` } } });
  }
  return { duplicate: false, runs: a.runs, hits: a.hits };
}

/** Store a minimized reproducer beside the original (input bytes when it has them, else the reproducer as JSON). */
export async function applyMinimized(
  db: Db,
  a: { jobId: string; workerId: string; bucketId: string; execs: number; busyMs: number; error?: string; minimized?: Minimized },
): Promise<{ duplicate: boolean }> {
  if (!(await claimJob(db, a.jobId, a.workerId, a.execs, a.busyMs, a.error))) return { duplicate: true };
  if (!a.minimized) {
    await db.prisma.bucketEvent.create({ data: { bucketId: a.bucketId, action: "minimized", detail: { failed: a.error ?? "no result" } } });
    return { duplicate: false };
  }
  const m = a.minimized;
  const bytes = m.reproducer.engine !== "wasm" && m.reproducer.input !== undefined ? Buffer.from(m.reproducer.input, "base64") : Buffer.from(JSON.stringify(m.reproducer));
  await db.prisma.crashBucket.update({ where: { id: a.bucketId }, data: { minimized: new Uint8Array(bytes) } });
  await db.prisma.bucketEvent.create({
    data: { bucketId: a.bucketId, action: "minimized", detail: { explanation: m.explanation, originalSize: m.originalSize, size: m.size, tries: m.tries, reproducer: m.reproducer as object } },
  });
  return { duplicate: false };
}
