// @fuzzfarm/protocol: job and result types with their runtime schemas,
// the engine interface, outcomes and stable error codes.
import { z } from "zod";
import { FuzzFarmError } from "./errors";
import { JobPayload } from "./job";
import { JobResult } from "./result";

export * from "./errors";
export * from "./outcome";
export * from "./job";
export * from "./result";
export { RESULT_LIMITS, ReportedReproducer, ReportedInputReproducer, ReportedNodeReproducer, ReportedWasmReproducer, reportedReproducer, jobReproducer, optimizersOf } from "./reported";
export { publishableResult, checkResultBytes, type ResultIds } from "./publishable";
export * from "./job-errors";
export * from "./engine";
export { CampaignConfig, parseCampaignConfig, readCampaignConfig, type CampaignConfigInput, type CampaignConfigFor } from "./campaign-config";
export { SameBugRule, RuleBucket, RuleFrame, MAX_RULE_BUCKETS } from "./same-bug";
export { splitArgv, splitOutsideQuotes } from "./argv";
export { isUnderTargetRoots } from "./target-roots";
export { InputOptions, InputSeedStrategy, InputReproducer } from "./options/input";
export { NodeOptions, NodeParams, NodeSeedStrategy, NodeSchedule, NodeScheduleEvent, NodeReproducer } from "./options/node";
export { NODE_STRATEGIES, NODE_JOB_STRATEGIES, isNodeStrategy, isNodeJobStrategy, type NodeStrategy, type NodeJobStrategy } from "./options/node-strategies";
export {
  WASM_STRATEGIES, WASM_GENERATOR_LIMITS, WASM_OPT_LEVELS, WasmOptLevel, WasmStrategy, type WasmStrategyName, WasmGenerator, WasmFault, WasmOptions,
  WasmSeedStrategy, WasmRunSpec, WasmRunConfig, WasmTrace, WasmReproducer, JsonValue,
} from "./options/wasm";

function parseWith<S extends z.ZodType>(schema: S, what: string, value: unknown): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const first = r.error.issues[0]!;
  const where = first.path.length ? first.path.join(".") : "(root)";
  throw new FuzzFarmError("FF_ERR_BAD_JOB", `malformed ${what}: ${where}: ${first.message}`, r.error.issues);
}

/** Validate a job payload; throws FF_ERR_BAD_JOB with a one-line message naming the first bad field. */
export const parseJob = (value: unknown): JobPayload => parseWith(JobPayload, "job payload", value);
/** Validate a job result; throws FF_ERR_BAD_JOB likewise. */
export const parseResult = (value: unknown): JobResult => parseWith(JobResult, "job result", value);
