// @fuzzfarm/corpus: seeded mutators, havoc, and the power schedule that
// decides which seeds get mutated (inside a job) or shipped (by the coordinator).
export { createRng, type Rng } from "./rng";
export { MUTATORS, type Mutator, type MutationContext } from "./mutators/index";
export {
  bitFlip,
  byteSet,
  interesting,
  arithmetic,
  insertBytes,
  deleteBytes,
  duplicateBlock,
  copyBlock,
  dictInsert,
  dictOverwrite,
  splice,
} from "./mutators/index";
export { havoc, havocChain, randomInput, type HavocOptions, type HavocResult } from "./havoc";
export { Corpus, type CorpusEntry, type CorpusOptions } from "./corpus";
export { seedWeight, meanExecUs, DEFAULT_HALF_LIFE, type SeedStats, type ScheduleOptions } from "./schedule";
export { selectSeeds } from "./select";
