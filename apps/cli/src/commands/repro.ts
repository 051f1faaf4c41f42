// `fuzzfarm repro <bucket | FILE.json>`: replay a bucket's reproducer locally with its
// engine and say whether the same crash came back (exit 0 yes, 1 no). "The
// same crash" is triage's one rule (matchesBucket) against the bucket and the
// target's other buckets, with the root the farm's coordinator classifies with.
// The run is the one a replay job would be (protocol's jobReproducer: the
// stored report's input, seed and schedule, the campaign's stored options), and
// an optimizer in it runs only when FUZZFARM_ALLOWED_OPTIMIZERS lists it.
import { existsSync } from "node:fs";
import { bucketWithFirstReport, getBucket } from "@fuzzfarm/db";
import { FuzzFarmError, jobReproducer, readCampaignConfig, reportedReproducer, Reproducer, type Outcome, type SameBugRule } from "@fuzzfarm/protocol";
import { sameBugRule } from "@fuzzfarm/coordinator";
import { isSameBug } from "@fuzzfarm/triage";
import type { Config } from "@fuzzfarm/config";
import { openFarm, PROJECT_ROOT } from "../context";
import { reproduceAndCount, writeReproVerdict } from "../reproduce-runs";

export async function reproCommand(id: string, f: { runs?: number; json?: boolean; root?: string }, config: Config, out = process.stdout): Promise<number> {
  // a reproducer file (`fuzzfarm ci`'s artifact) runs without a database
  if (/\.json$/i.test(id) && existsSync(id)) return (await import("../ci/reproducer-file")).reproFile(id, f, config.allowedOptimizers, out);
  const farm = await openFarm(config);
  let bucket;
  let first;
  let rule: SameBugRule | null = null;
  try {
    bucket = await getBucket(farm.db, id);
    if (bucket) rule = await sameBugRule(farm.db, id, PROJECT_ROOT);
    first = await bucketWithFirstReport(farm.db, id);
  } finally {
    await farm.close();
  }
  if (!bucket || !rule) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no bucket ${id}`);
  const report = first?.reports[0];
  if (!report) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `bucket ${id} has no report to replay`);
  const stored = (report.artifact as { reproducer?: unknown } | null)?.reproducer;
  // A report of no campaign has no stored options: its run alone, with the engine's defaults.
  const repro = report.campaign ? jobReproducer(stored, readCampaignConfig(report.campaign.config, report.campaign.id)) : Reproducer.parse(reportedReproducer(Reproducer.parse(stored)));
  const r = await reproduceAndCount(bucket.target.path, repro, f.runs ?? 1, config.allowedOptimizers, (o) => reproducedBucket(o, rule));
  return writeReproVerdict(out, f.json, { bucketId: id }, `bucket ${id} (${bucket.kind}: ${bucket.title})`, r);
}

/** Whether a repro run is the bucket's bug: triage's one rule with the farm's buckets and root (as replay jobs count). */
export function reproducedBucket(o: Outcome, rule: SameBugRule): boolean {
  return isSameBug(o, rule.bucket, rule);
}
