// @fuzzfarm/corpus: mutators, havoc, the power schedule that
// decides which seeds get mutated (inside a job) or shipped (by the coordinator),
// and the job recorder every engine builds its result with.
// Every mutator (one per file) and MUTATORS, the list havoc draws from.
export * from "./mutators/index";
export { havoc, havocChain, randomInput, type HavocOptions, type HavocResult } from "./havoc";
export { Corpus, type CorpusEntry, type CorpusOptions } from "./corpus";
export { seedWeight, meanExecUs, DEFAULT_HALF_LIFE, type SeedStats, type ScheduleOptions } from "./schedule";
export { selectSeeds } from "./select";
// What one job found (execs, features, candidates, findings, yield, progress), shared by the engines.
export { JobRecorder, type JobRecorderOptions, type JobRecord, type CandidateLike, type YieldField } from "./job-recorder";
