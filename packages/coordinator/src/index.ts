// @fuzzfarm/coordinator: campaign supervision, job planning and result application.
export { startCoordinator, type Coordinator, type CoordinatorOptions, type NewCampaign, type ResultApplied } from "./coordinator";
export { PLANNERS, type CampaignPlanConfig } from "./planners/index";
export { validateCampaignConfig } from "./validate-campaign";
export { nudgeNumbers } from "./planners/nudge";
export { enqueueReplay, enqueueMinimize, sameBugRule, countReplayHits, DEFAULT_MAINTENANCE, type MaintenanceOptions } from "./maintenance";
export { classifyFindings } from "./classify";
