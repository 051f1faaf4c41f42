// @fuzzfarm/engine-wasm: the Wasm threads harness.
// Generates terminating shared-memory programs with known results, runs them on
// a pool of worker threads in a supervised child process under seeded
// schedules, and checks them against schedule, history, tier, optimizer and
// litmus (SC) oracles. See README.md.
export { wasmEngine, createWasmEngine, resolveTarget, type WasmTarget } from "./internal/engine";
export type { WasmEngineOptions, CommandEngine } from "./internal/runner/offered";
/** Path of the reference runner (runner/child.mjs): `[process.execPath, RUNNER_PATH]` is a command engine that runs this Node. */
export { CHILD as RUNNER_PATH } from "./internal/runner/supervisor";
export { runWasmCli, type CliIo } from "./internal/cli";
export { minimizeProgram, minimizeSchedule, removeThread } from "./internal/minimize";
export { minimizeFinding } from "./internal/findings";
export { generate } from "./internal/gen/generate";
export { emitWat } from "./internal/gen/emit";
export { evaluate, resultKey } from "./internal/gen/evaluate";
export { parseGenConfig, DEFAULT_GEN_CONFIG, GEN_PRESETS, type GenConfig } from "./internal/gen/config";
export { programShape, programToJson, programFromJson } from "./internal/gen/shape";
export type { Program } from "./internal/gen/ir";
export { Harness, DEFAULT_CHECK, expectedOf, metaFor, type CheckOptions, type ProgramReport, type ProgramFinding, type FaultSpec, type OracleKind } from "./internal/harness";
export { loadLitmus, runLitmus, allowedOutcomes, type LitmusReport, type LitmusOptions } from "./internal/litmus/litmus";
export { FAULT_KINDS, type FaultKind } from "./internal/text/faults";
export { STRATEGIES, runSpec } from "./internal/runner/strategies";
// Steps the benches (bench/wasm-*.ts, bench/wasm-real-bugs/) measure or drive on their own: wat encoding (wabt,
// and binaryen.js for comparison), an optimizer release under test, which RMWs of a program race.
export { encodeWat, encodeWatBinaryen } from "./internal/wasm-tools";
export { optimize, passEffects, OPT_LEVELS, type OptLevel, type OptimizerSource } from "./internal/optimize";
export { hasRacingRmw } from "./internal/gen/hb";
export { probeOptimizer, withinOptimizer, checkWasmCampaignOptions, PROBED_FEATURES, type OptimizerProbe } from "./internal/optimizer/probe";
