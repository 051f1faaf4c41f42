// A planner turns a campaign and its corpus into the next job's payload.
// One planner per engine; all of them draw every choice from the rng. The
// payload leaves the planner parsed by the protocol's job schema, so what is
// enqueued is what a worker accepts.
import type { CampaignConfigFor, CampaignConfigInput, EngineName, JobPayload } from "@fuzzfarm/protocol";
import type { Rng } from "@fuzzfarm/rng";

export interface PlannerCorpusEntry {
  id: string;
  data: Uint8Array;
  /** What the engine recorded about the entry (stored JSON): each planner reads it with its engine's seed-strategy schema. */
  strategy: unknown;
  execTimeUs: number;
  newFeatures: number;
  timesChosen: number;
  timesProductive: number;
  /** ms since epoch. */
  addedAt: number;
}

/** A campaign's configuration as planners take it (options as given; the job schema applies defaults). */
export type CampaignPlanConfig = CampaignConfigInput;

export interface PlanInput<C extends CampaignConfigInput = CampaignConfigInput> {
  jobId: string;
  campaignId: string;
  target: { name: string; path: string; version: string };
  config: C;
  corpus: PlannerCorpusEntry[];
  rng: Rng;
  now: number;
}

export interface Plan {
  /** The job, parsed by the protocol's schema (throws FF_ERR_BAD_JOB before anything is enqueued). */
  payload: JobPayload;
  /** Corpus entries shipped with the job (their timesChosen is bumped). */
  chosen: string[];
}

/** Any engine's planner (PLANNERS[engine]); refuses a configuration of another engine. */
export type Planner = (p: PlanInput) => Plan;
/** The planner of engine E. */
export type EnginePlanner<E extends EngineName> = (p: PlanInput<CampaignConfigFor<E>>) => Plan;
