// @fuzzfarm/corpus: seeded mutators, havoc, and the power schedule that
// decides which seeds get mutated (inside a job) or shipped (by the coordinator).
export { createRng, type Rng } from "./rng";
// Every mutator (one per file) and MUTATORS, the list havoc draws from.
export * from "./mutators/index";
export { havoc, havocChain, randomInput, type HavocOptions, type HavocResult } from "./havoc";
export { Corpus, type CorpusEntry, type CorpusOptions } from "./corpus";
export { seedWeight, meanExecUs, DEFAULT_HALF_LIFE, type SeedStats, type ScheduleOptions } from "./schedule";
export { selectSeeds } from "./select";
