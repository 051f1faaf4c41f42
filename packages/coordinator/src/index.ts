// @fuzzfarm/coordinator: campaign supervision, job planning and result application.
export { startCoordinator, type Coordinator, type CoordinatorOptions } from "./coordinator";
export { lineLogger, type Logger } from "./logger";
export type { NewCampaign } from "./campaign-lifecycle";
export type { ResultApplied, MaintenanceApplied, CampaignEndStatus, CoordinatorEvents, CoordinatorListener } from "./events";
export {
  JobErrorHandlers,
  defaultJobErrorHandlers,
  DEFAULT_JOB_ERROR_POLICY,
  type JobErrorContext,
  type JobErrorDecision,
  type JobErrorHandler,
  type JobErrorPolicy,
} from "./job-errors";
export { PLANNERS, type CampaignPlanConfig } from "./planners/index";
export { validateCampaignConfig } from "./validate-campaign";
export { nudgeNumbers } from "./planners/nudge";
export { enqueueReplay, enqueueMinimize, sameBugRule, countReplayHits, DEFAULT_MAINTENANCE, type MaintenanceOptions } from "./maintenance";
export { classifyFindings } from "./classify";
