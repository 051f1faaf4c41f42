import type { EngineName } from "@fuzzfarm/protocol";
import type { Planner } from "./types";
import { planInput } from "./input";
import { planNode } from "./node";
import { planWasm } from "./wasm";

export const PLANNERS: Record<EngineName, Planner> = { input: planInput, node: planNode, wasm: planWasm };
export type { Planner, PlanInput, Plan, CampaignPlanConfig, PlannerCorpusEntry } from "./types";
