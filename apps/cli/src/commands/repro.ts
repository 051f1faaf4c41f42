// `fuzzfarm repro <bucket | FILE.json>`: replay a bucket's reproducer locally with its
// engine and say whether the same crash came back (exit 0 yes, 1 no). "The
// same crash" is triage's one rule (matchesBucket) against the bucket and the
// target's other buckets, with the root the farm's coordinator classifies with.
// The run is the one a replay job would be (protocol's jobReproducer: the
// stored report's input, seed and schedule, the campaign's stored options), and
// an optimizer in it runs only when FUZZFARM_ALLOWED_OPTIMIZERS lists it.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bucketWithFirstReport, getBucket } from "@fuzzfarm/db";
import { FuzzFarmError, findingKind, jobReproducer, readCampaignConfig, reportedReproducer, Reproducer, type EngineName, type Outcome, type SameBugRule } from "@fuzzfarm/protocol";
import { sameBugRule } from "@fuzzfarm/coordinator";
import { checkOptimizers, loadEngines } from "@fuzzfarm/worker";
import { isSameBug } from "@fuzzfarm/triage";
import type { Config } from "@fuzzfarm/config";
import { terminalText } from "@fuzzfarm/logging";
import { openFarm, PROJECT_ROOT } from "../context";

export async function reproCommand(id: string, f: { runs?: number; json?: boolean; root?: string }, config: Config, out = process.stdout): Promise<number> {
  // a reproducer file (`fuzzfarm ci`'s artifact) runs without a database
  if (/\.json$/i.test(id) && existsSync(id)) return (await import("../ci/reproducer-file")).reproFile(id, f, out);
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
  if (repro.engine === "wasm") checkOptimizers(repro.options, config.allowedOptimizers, "the allowed optimizers", "FF_ERR_FORBIDDEN");
  const { engines, missing } = await loadEngines([repro.engine as EngineName]);
  if (!engines[0]) throw new FuzzFarmError("FF_ERR_ENGINE_UNAVAILABLE", `engine ${repro.engine} unavailable: ${missing[0]?.why}`);
  const runs = f.runs ?? 1;
  let hits = 0;
  const outcomes: Outcome[] = [];
  const workDir = await mkdtemp(join(tmpdir(), "ffrepro-"));
  try {
    for (let i = 0; i < runs; i++) {
      const o = await engines[0].reproduce({ path: bucket.target.path }, repro, { signal: new AbortController().signal, workDir });
      outcomes.push(o);
      if (reproducedBucket(o, rule)) hits++;
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const verdict = hits > 0 ? "reproduced" : "did not reproduce";
  if (f.json) out.write(`${JSON.stringify({ bucketId: id, runs, reproduced: hits, outcomes: outcomes.map((o) => (o.kind === "ok" ? "ok" : `${findingKind(o)}: ${o.message}`)) })}\n`);
  else {
    out.write(`bucket ${id} (${bucket.kind}: ${terminalText(bucket.title)}): ${verdict} in ${hits}/${runs} run(s)\n`);
    const last = outcomes[outcomes.length - 1];
    if (last && last.kind !== "ok") out.write(`${terminalText(last.stack).split("\n").slice(0, 10).join("\n")}\n`);
  }
  return hits > 0 ? 0 : 1;
}

/** Whether a repro run is the bucket's bug: triage's one rule with the farm's buckets and root (as replay jobs count). */
export function reproducedBucket(o: Outcome, rule: SameBugRule): boolean {
  return isSameBug(o, rule.bucket, rule);
}
