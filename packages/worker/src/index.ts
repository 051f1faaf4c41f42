// @fuzzfarm/worker: the worker runtime (queue consumer + engine dispatch + heartbeats).
export { startWorker, type WorkerOptions, type RunningWorker } from "./worker";
export { loadEngines, type EngineOptions } from "./engines";
export { checkJobPolicy, checkOptimizers, type JobPolicy } from "./policy";
export {
  probeNetSandbox,
  probeFsSandbox,
  resolveSandbox,
  jobSandbox,
  privateTmpDirs,
  NET_SANDBOX_PREFIX,
  type SandboxMode,
  type SandboxProbeOptions,
  type ResolvedSandbox,
  type JobSandboxPaths,
} from "./sandbox";
export { ddmin, type DdminOptions } from "./maintenance/ddmin";
export { minimizeCheck } from "./maintenance/minimize";
