// @fuzzfarm/worker: the worker runtime (queue consumer + engine dispatch + heartbeats).
export { startWorker, type WorkerOptions, type RunningWorker } from "./worker";
export { loadEngines } from "./engines";
export { ddmin, type DdminOptions } from "./maintenance/ddmin";
