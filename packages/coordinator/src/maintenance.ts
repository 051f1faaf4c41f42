// Maintenance jobs the coordinator schedules for buckets: a replay job per
// new bucket (its reproduction rate), then a minimize job once it reproduced.
// They go to the maintenance queues so they never starve fuzzing. Hits and
// minimization both keep to triage's one "same bug" rule: the minimize job
// carries the bucket, its neighbours and the root they were classified with.
import { bucketCandidate, isSameBug } from "@fuzzfarm/triage";
import { jobReproducer, oneLine, readCampaignConfig, type Finding, type MaintenanceResult, type SameBugRule } from "@fuzzfarm/protocol";
import { applyMinimized, applyReplay, bucketCandidates, bucketWithFirstReport, insertJobs, type Db } from "@fuzzfarm/db";
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

async function enqueueFor(db: Db, queues: FarmQueues, bucketId: string, kind: "replay" | "minimize", m: MaintenanceOptions, sameBug?: SameBugRule): Promise<void> {
  const b = await bucketWithFirstReport(db, bucketId);
  const report = b?.reports[0];
  // Each refusal is an error the caller logs: a bucket that silently gets no replay looks "not replayed yet" forever.
  if (!b || !report?.campaign) throw new Error(`no ${kind} for bucket ${bucketId}: it has no report from a campaign`);
  const artifact = report.artifact;
  // Options, commands and paths come from the campaign as stored at its creation (read back through its schema);
  // of the stored report only the run it saw (input, seed, schedule, program): see protocol's reported.ts.
  const config = readCampaignConfig(report.campaign.config, report.campaign.id);
  let reproducer;
  try {
    reproducer = jobReproducer(artifact && typeof artifact === "object" && !Array.isArray(artifact) ? artifact.reproducer : undefined, config);
  } catch (e) {
    throw new Error(`no ${kind} for bucket ${bucketId}: its first report's reproducer: ${oneLine(e)}`);
  }
  const job = parseJob({
    engine: config.engine,
    kind,
    jobId: `${kind}-${bucketId}`,
    campaignId: report.campaign.id,
    target: { name: b.target.name, path: b.target.path, version: b.target.version },
    budget: kind === "replay" ? { runs: m.replayRuns, seconds: m.replaySeconds } : { runs: m.minimizeRuns, seconds: m.minimizeSeconds },
    seeds: [],
    options: config.options,
    bucketId,
    reproducer,
    ...(sameBug ? { sameBug } : {}),
  });
  await insertJobs(db, [{ id: job.jobId, campaignId: job.campaignId, kind, payload: job }]);
  await enqueueJob(queues, job);
}

export const enqueueReplay = (db: Db, q: FarmQueues, bucketId: string, m = DEFAULT_MAINTENANCE) => enqueueFor(db, q, bucketId, "replay", m);
/** `rootDir`: the root the bucket was classified with (the coordinator's), so the worker keeps the same bug. */
export async function enqueueMinimize(db: Db, q: FarmQueues, bucketId: string, rootDir: string, m = DEFAULT_MAINTENANCE): Promise<void> {
  const sameBug = await sameBugRule(db, bucketId, rootDir);
  if (!sameBug) throw new Error(`no minimize for bucket ${bucketId}: the bucket is gone`);
  await enqueueFor(db, q, bucketId, "minimize", m, sameBug);
}

/**
 * A bucket as the "same bug" rule compares against it (triage's matchesBucket): the bucket with its first
 * report's normalized message, and the target's other same-kind buckets, exactly the candidates
 * classification sees, all relative to the coordinator's `rootDir`. Null when the bucket is gone.
 */
export async function sameBugRule(db: Db, bucketId: string, rootDir: string): Promise<SameBugRule | null> {
  const b = await bucketWithFirstReport(db, bucketId);
  if (!b) return null;
  const first = b.reports[0];
  const bucket = bucketCandidate(
    { ...b, normalizedMessage: (first?.triage as { normalizedMessage?: string } | null)?.normalizedMessage, message: first?.message },
    { rootDir },
  );
  const others = (await bucketCandidates(db, b.targetId, b.kind)).filter((o) => o.id !== b.id).map((o) => bucketCandidate(o, { rootDir }));
  return { rootDir, bucket, others };
}

/** How many of a replay job's runs are the bucket's bug (triage's matchesBucket, the rule classification uses). */
export async function countReplayHits(db: Db, r: { findings: readonly Finding[] }, bucketId: string, rootDir: string): Promise<number> {
  const rule = await sameBugRule(db, bucketId, rootDir);
  if (!rule) return 0;
  return r.findings.filter((f) => isSameBug(f, rule.bucket, rule)).length;
}

/** Apply a replay or minimize result; returns a line for the log. */
export async function applyMaintenanceResult(db: Db, queues: FarmQueues, r: MaintenanceResult, bucketId: string, rootDir: string, m = DEFAULT_MAINTENANCE): Promise<string> {
  const error = r.error ? `${r.error.kind}: ${r.error.message}` : undefined;
  if (r.kind === "replay") {
    const hits = error ? 0 : await countReplayHits(db, r, bucketId, rootDir);
    // The minimize job exists before the replay is marked done, so "no open maintenance job" means both ended.
    // A minimize job that cannot be built must not cost the replay its result: the reason goes to the log line.
    const noMinimize = hits > 0 ? await enqueueMinimize(db, queues, bucketId, rootDir, m).then(() => "", (e: Error) => `; ${e.message}`) : "";
    await applyReplay(db, { jobId: r.jobId, workerId: r.workerId, bucketId, runs: r.execs, hits, busyMs: r.busyMs, error });
    return `bucket ${bucketId} reproduced ${hits}/${r.execs}${noMinimize}`;
  }
  await applyMinimized(db, { jobId: r.jobId, workerId: r.workerId, bucketId, execs: r.execs, busyMs: r.busyMs, error, minimized: r.minimized });
  return r.minimized ? `bucket ${bucketId} minimized: ${r.minimized.explanation}` : `bucket ${bucketId} not minimized: ${error}`;
}
