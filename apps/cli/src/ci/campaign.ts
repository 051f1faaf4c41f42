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
  /** Repository root: crash frames and titles are relative to it (local mode; a farm uses its own). */
  root: string;
  /** Corpus carried from earlier runs (state directory), seeded into the campaign (local mode). */
  seeds?: Buffer[];
  /**
   * Code-change mode: end the campaign early once it has found a bucket whose signature is not in this set and
   * `settleSeconds` passed without another such one (the replays then confirm them). Default: run to the deadline.
   */
  stopAfterNew?: { known: ReadonlySet<string>; settleSeconds: number };
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
  /** The campaign's corpus inputs, to keep in the state directory (local mode). */
  corpus?: Buffer[];
}

export interface CiCampaignRunner {
  /** Runs the time-boxed campaign to its end; rejects with FF_ERR_CAMPAIGN_FAILED when it failed. */
  run(spec: CiCampaignSpec, hooks: CiCampaignHooks): Promise<CiCampaignResult>;
  /** Reproduction command shown for a bucket (annotations, SARIF, summary). */
  reproduceCommand(bucketId: string): string;
  /** Releases what the runner holds (idempotent). */
  close(): Promise<void>;
}
