// Maintenance jobs the coordinator schedules for buckets: a replay job per
// new bucket (its reproduction rate), then a minimize job once it reproduced.
// They go to the maintenance queues so they never starve fuzzing.
import { chooseBucket, crashState, normalizeMessage } from "@fuzzfarm/triage";
import { Reproducer, findingKind, type JobPayloadInput, type JobResult } from "@fuzzfarm/protocol";
import { applyMinimized, applyReplay, insertJobs, type Db } from "@fuzzfarm/db";
import { enqueueJob, type FarmQueues } from "@fuzzfarm/queue";
import { parseJob } from "@fuzzfarm/protocol";

export interface MaintenanceOptions {
  /** Replays per new bucket. Default 20. */
  replayRuns: number;
  /** Time cap of a replay job, seconds. Default 120. */
  replaySeconds: number;
  /** Runs allowed to a minimizer. Default 400. */
  minimizeRuns: number;
  /** Time cap of a minimize job, seconds. Default 60. */
  minimizeSeconds: number;
}

export const DEFAULT_MAINTENANCE: MaintenanceOptions = { replayRuns: 20, replaySeconds: 120, minimizeRuns: 400, minimizeSeconds: 60 };

async function enqueueFor(db: Db, queues: FarmQueues, bucketId: string, kind: "replay" | "minimize", m: MaintenanceOptions): Promise<void> {
  const b = await db.prisma.crashBucket.findUnique({
    where: { id: bucketId },
    include: { target: true, reports: { orderBy: { createdAt: "asc" }, take: 1, include: { campaign: true } } },
  });
  const report = b?.reports[0];
  // Each refusal is an error the caller logs: a bucket that silently gets no replay looks "not replayed yet" forever.
  if (!b || !report?.campaign) throw new Error(`no ${kind} for bucket ${bucketId}: it has no report from a campaign`);
  const repro = Reproducer.safeParse((report.artifact as { reproducer?: unknown }).reproducer);
  if (!repro.success) throw new Error(`no ${kind} for bucket ${bucketId}: its first report's reproducer does not parse: ${repro.error.issues[0]?.message}`);
  const config = report.campaign.config as { options?: Record<string, unknown> };
  const payload: JobPayloadInput = {
    engine: repro.data.engine,
    kind,
    jobId: `${kind}-${bucketId}`,
    campaignId: report.campaign.id,
    target: { name: b.target.name, path: b.target.path, version: b.target.version },
    budget: kind === "replay" ? { runs: m.replayRuns, seconds: m.replaySeconds } : { runs: m.minimizeRuns, seconds: m.minimizeSeconds },
    seeds: [],
    options: { ...(config.options ?? {}), ...repro.data.options } as never,
    bucketId,
    reproducer: repro.data,
  } as JobPayloadInput;
  const job = parseJob(payload);
  await insertJobs(db, [{ id: job.jobId, campaignId: job.campaignId, kind, payload: job }]);
  await enqueueJob(queues, job);
}

export const enqueueReplay = (db: Db, q: FarmQueues, bucketId: string, m = DEFAULT_MAINTENANCE) => enqueueFor(db, q, bucketId, "replay", m);
export const enqueueMinimize = (db: Db, q: FarmQueues, bucketId: string, m = DEFAULT_MAINTENANCE) => enqueueFor(db, q, bucketId, "minimize", m);

/** How many of a replay job's runs failed the way the bucket's first report did. */
async function countHits(db: Db, r: JobResult, bucketId: string, rootDir: string): Promise<number> {
  const b = await db.prisma.crashBucket.findUnique({ where: { id: bucketId }, include: { reports: { orderBy: { createdAt: "asc" }, take: 1 } } });
  if (!b) return 0;
  const candidate = {
    id: b.id,
    signature: b.signature,
    kind: b.kind,
    frames: b.frames as never,
    normalizedMessage:
      (b.reports[0]?.triage as { normalizedMessage?: string } | null)?.normalizedMessage ?? normalizeMessage(b.reports[0]?.message ?? "", { rootDir }),
  };
  const ownSignature = (b.reports[0]?.triage as { ownSignature?: string } | null)?.ownSignature;
  let hits = 0;
  for (const f of r.findings) {
    if (findingKind(f) !== b.kind) continue;
    const s = crashState(f, { rootDir });
    if (s.signature === b.signature || s.signature === ownSignature || chooseBucket(s, [candidate]).bucketId === b.id) hits++;
  }
  return hits;
}

/** Apply a replay or minimize result; returns a line for the log. */
export async function applyMaintenanceResult(db: Db, queues: FarmQueues, r: JobResult, bucketId: string, rootDir: string, m = DEFAULT_MAINTENANCE): Promise<string> {
  const error = r.error ? `${r.error.kind}: ${r.error.message}` : undefined;
  if (r.kind === "replay") {
    const hits = error ? 0 : await countHits(db, r, bucketId, rootDir);
    // The minimize job exists before the replay is marked done, so "no open maintenance job" means both ended.
    // A minimize job that cannot be built must not cost the replay its result: the reason goes to the log line.
    const noMinimize = hits > 0 ? await enqueueMinimize(db, queues, bucketId, m).then(() => "", (e: Error) => `; ${e.message}`) : "";
    await applyReplay(db, { jobId: r.jobId, workerId: r.workerId, bucketId, runs: r.execs, hits, busyMs: r.busyMs, error });
    return `bucket ${bucketId} reproduced ${hits}/${r.execs}${noMinimize}`;
  }
  await applyMinimized(db, { jobId: r.jobId, workerId: r.workerId, bucketId, execs: r.execs, busyMs: r.busyMs, error, minimized: r.minimized });
  return r.minimized ? `bucket ${bucketId} minimized: ${r.minimized.explanation}` : `bucket ${bucketId} not minimized: ${error}`;
}
