// A planner turns a campaign and its corpus into the next job's payload.
// One planner per engine; all of them draw every choice from the rng.
import type { EngineName, JobPayloadInput } from "@fuzzfarm/protocol";
import type { Rng } from "@fuzzfarm/corpus";

export interface PlannerCorpusEntry {
  id: string;
  data: Uint8Array;
  strategy: Record<string, unknown>;
  execTimeUs: number;
  newFeatures: number;
  timesChosen: number;
  timesProductive: number;
  /** ms since epoch. */
  addedAt: number;
}

export interface CampaignPlanConfig {
  engine: EngineName;
  /** Engine options as given by the user (strategy, timeouts, generator...). */
  options: Record<string, unknown>;
  /** Seconds of work per job. */
  jobSeconds: number;
  /** Runs per job for engines whose runs are whole programs (node, wasm). */
  runsPerJob?: number;
}

export interface PlanInput {
  jobId: string;
  campaignId: string;
  target: { name: string; path: string; version: string };
  config: CampaignPlanConfig;
  corpus: PlannerCorpusEntry[];
  rng: Rng;
  now: number;
}

export interface Plan {
  payload: JobPayloadInput;
  /** Corpus entries shipped with the job (their timesChosen is bumped). */
  chosen: string[];
}

export type Planner = (p: PlanInput) => Plan;
