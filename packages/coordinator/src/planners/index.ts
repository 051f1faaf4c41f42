// The planners by engine. PLANNERS[engine] takes any campaign configuration
// and refuses one of another engine; planJob dispatches on the configuration.
import { FuzzFarmError, type CampaignConfigFor, type EngineName } from "@fuzzfarm/protocol";
import type { EnginePlanner, Plan, PlanInput, Planner } from "./types";
import { planInput } from "./input";
import { planNode } from "./node";
import { planWasm } from "./wasm";

/** A planner of one engine as a planner of any (a configuration of another engine is an internal error). */
function forEngine<E extends EngineName>(engine: E, plan: EnginePlanner<E>): Planner {
  const isFor = (p: PlanInput): p is PlanInput<CampaignConfigFor<E>> => p.config.engine === engine;
  return (p) => {
    if (!isFor(p)) throw new FuzzFarmError("FF_ERR_INTERNAL", `the ${engine} planner got a ${p.config.engine} campaign`);
    return plan(p);
  };
}

export const PLANNERS: Record<EngineName, Planner> = { input: forEngine("input", planInput), node: forEngine("node", planNode), wasm: forEngine("wasm", planWasm) };

/** Plan the next job of a campaign with its engine's planner; the payload is parsed (FF_ERR_BAD_JOB when it does not fit). */
export const planJob = (p: PlanInput): Plan => PLANNERS[p.config.engine](p);

export type { Planner, EnginePlanner, PlanInput, Plan, CampaignPlanConfig, PlannerCorpusEntry } from "./types";
export { clampGenerator } from "./wasm";
