// A campaign's engine options are checked once, when it is created, by
// planning a first job and validating it with the same schema workers use:
// a typo such as `-o timeoutMs=abc` is a usage error before anything is
// queued, not a campaign whose every job is rejected.
import { createRng } from "@fuzzfarm/corpus";
import { FuzzFarmError, isFuzzFarmError, parseJob } from "@fuzzfarm/protocol";
import { PLANNERS, type CampaignPlanConfig } from "./planners/index";

export function validateCampaignConfig(target: { name: string; path: string; version: string }, config: CampaignPlanConfig): void {
  const planner = PLANNERS[config.engine];
  if (!planner) throw new FuzzFarmError("FF_ERR_CONFIG", `unknown engine "${config.engine}" (input, node or wasm)`);
  if (!(config.jobSeconds > 0) || !Number.isFinite(config.jobSeconds)) throw new FuzzFarmError("FF_ERR_CONFIG", `job length must be a positive number of seconds (got ${config.jobSeconds})`);
  const { payload } = planner({ jobId: "validate", campaignId: "validate", target, config, corpus: [], rng: createRng(1), now: Date.now() });
  try {
    parseJob(payload);
  } catch (e) {
    if (!isFuzzFarmError(e)) throw e;
    // "malformed job payload: options.timeoutMs: Expected number" -> "option timeoutMs: Expected number"
    const m = /^malformed job payload: (?:options\.)?(.*)$/.exec(e.message);
    throw new FuzzFarmError("FF_ERR_CONFIG", `${config.engine} engine: bad option ${m ? m[1] : e.message}`);
  }
}
