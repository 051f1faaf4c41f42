// @fuzzfarm/engine-node: the Node event fuzzer. Runs a program with a
// preload that holds and reorders asynchronous completions within Node's
// guarantees, records the delivered schedule, replays and minimizes it.
//
//   nodeEngine       the farm's Engine<'node'> (selfTest, run, reproduce)
//   runNodeCli       the `fuzzfarm node ...` command
//   startNodeCliInProcess  the same command run in the caller's process, when it needs no parent
//   minimizeSchedule delta debugging over held callbacks, with an explanation
export { nodeEngine } from "./internal/engine";
export { runNodeCli, type CliIo } from "./internal/cli";
export { startNodeCliInProcess } from "./internal/in-process";
export { HELP as NODE_CLI_HELP } from "./internal/cli-args";
export { minimizeSchedule, type MinimizeOptions, type MinimizeResult } from "./internal/minimize";
export { describeEvent, explainHolds } from "./internal/explain";
export { execute, type Execution } from "./internal/execute";
export { WarmPool } from "./internal/warm";
export type { RunSpec, RunResult } from "./internal/spawn";
export { fingerprint, racePairs, toReplaySpec, type Trace, type TraceEvent, type ReplaySpec } from "./internal/trace";
export { sameFailureAs, FailureSet } from "./internal/same-failure";
export { raceCandidates, GuidePicker, guideParams, siteHash, API_WEIGHT, type RacePairCandidate } from "./internal/guide";
