// A campaign's configuration is checked once, when it is created: its engine
// options by the engine's schema (protocol CampaignConfig, the schema workers
// parse payloads with), then by planning a first job, which the planner parses
// as a job payload. A typo such as `-o timeoutMs=abc` is a usage error before
// anything is queued, not a campaign whose every job is rejected.
import { createRng } from "@fuzzfarm/rng";
import { FuzzFarmError, isFuzzFarmError, parseCampaignConfig, type CampaignConfig } from "@fuzzfarm/protocol";
import { planJob } from "./planners/index";

/**
 * The campaign's configuration, parsed (options with their defaults): what to store. Throws FF_ERR_CONFIG
 * with one line naming the engine and the option (`node engine: bad option timeoutMs: ...`).
 */
export function validateCampaignConfig(
  target: { name: string; path: string; version: string },
  config: { engine: string; options?: unknown; jobSeconds: number; runsPerJob?: number },
): CampaignConfig {
  if (!(config.jobSeconds > 0) || !Number.isFinite(config.jobSeconds)) throw new FuzzFarmError("FF_ERR_CONFIG", `job length must be a positive number of seconds (got ${config.jobSeconds})`);
  const parsed = parseCampaignConfig(config);
  try {
    planJob({ jobId: "validate", campaignId: "validate", target, config: parsed, corpus: [], rng: createRng(1), now: Date.now() });
  } catch (e) {
    if (!isFuzzFarmError(e)) throw e;
    // "malformed job payload: options.timeoutMs: Expected number" -> "bad option timeoutMs: Expected number"
    const m = /^malformed job payload: (?:options\.)?(.*)$/.exec(e.message);
    throw new FuzzFarmError("FF_ERR_CONFIG", `${config.engine} engine: bad option ${m ? m[1] : e.message}`);
  }
  return parsed;
}
