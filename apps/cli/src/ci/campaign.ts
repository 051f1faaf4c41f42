// The campaign half of `fuzzfarm ci`, behind one interface so the rest of
// the command (replays on head and base, classification, SARIF, summary,
// check run) is one code path for both places a campaign can run:
//   local-campaign.ts  an in-process coordinator + local workers on this machine's services;
//   farm-campaign.ts   a running farm, through its dashboard's CI API (--farm URL).
import type { CandidateBucket } from "./replay";
import type { ResolvedTarget } from "../commands/targets";

export interface CiCampaignSpec {
  target: ResolvedTarget;
  /** Campaign length, seconds. */
  seconds: number;
  /** Work per job, seconds. */
  jobSeconds: number;
  /** Engine options (-o key=value). */
  options: Record<string, unknown>;
}

export interface CiCampaignHooks {
  /** The campaign exists (its id); the caller logs `campaign <id>: ...` (the GitHub App runner reads that line). */
  started(campaignId: string): void;
  /** A progress line (`[12s] execs ...`), about every 2 s while the campaign runs. */
  progress(line: string): void;
  log(line: string): void;
}

export interface CiCampaignResult {
  campaignId: string;
  /** Fuzzing time, seconds. */
  seconds: number;
  executions: number;
  /** Buckets this campaign hit. */
  buckets: number;
  /** Every bucket the farm knows for the target (this campaign's and earlier ones), to replay on head and base. */
  candidates: CandidateBucket[];
}

export interface CiCampaignRunner {
  /** Runs the time-boxed campaign to its end; rejects with FF_ERR_CAMPAIGN_FAILED when it failed. */
  run(spec: CiCampaignSpec, hooks: CiCampaignHooks): Promise<CiCampaignResult>;
  /** Reproduction command shown for a bucket (annotations, SARIF, summary). */
  reproduceCommand(bucketId: string): string;
  /** Releases what the runner holds (idempotent). */
  close(): Promise<void>;
}
