// The coverage-guided input engine's data as it crosses packages: its job options
// (what `-o` sets), what a corpus entry records and the reproducer. Owned by
// packages/engine-input; typed here so the coordinator and the worker read them
// without re-casting.
import { z } from "zod";

/** Options of the coverage-guided input engine (`fuzz(data: Buffer)` targets). */
export const InputOptions = z.object({
  /** Largest input the mutators produce, in bytes. Default 4096. */
  maxLen: z.number().int().min(1).max(1 << 20).default(4096),
  /** Per-input timeout before the execution counts as a hang, ms. Default 2000. */
  timeoutMs: z.number().int().min(10).max(600_000).default(2000),
  /** Heap limit of the executor process, MiB. Default 512. */
  maxMemoryMb: z.number().int().min(32).max(16384).default(512),
  /** Use comparison operands / literals of the target as a dictionary. Default true. */
  dictionary: z.boolean().default(true),
  /** Use coverage feedback at all (false = uniform random inputs, for comparisons). Default true. */
  coverageGuided: z.boolean().default(true),
  /** Havoc stack depth: up to 2^n stacked mutations. Default 4. */
  havocDepth: z.number().int().min(1).max(8).default(4),
  /** RNG seed of the mutators for this job. Default 0. */
  seed: z.number().int().default(0),
  /**
   * Directory that coverage paths and feature keys are relative to; files
   * under it (outside node_modules) are instrumented. Default null: the
   * nearest ancestor of the target holding `.git`, else the target's directory.
   */
  root: z.string().min(1).nullable().default(null),
  /** End the job at its first finding (libFuzzer's default behaviour). Default false. */
  stopOnFinding: z.boolean().default(false),
});
export type InputOptions = z.infer<typeof InputOptions>;

/** What an input-engine corpus entry records: the mutators that made it and the entry it was mutated from. */
export const InputSeedStrategy = z.object({
  mutators: z.array(z.string()).optional(),
  /** Corpus id (within the job) of the entry it was mutated from. */
  parent: z.string().optional(),
});
export type InputSeedStrategy = z.infer<typeof InputSeedStrategy>;

/** Everything needed to run an input-engine finding again: the input and the executor's limits. */
export const InputReproducer = z.object({
  engine: z.literal("input"),
  /** The input (base64); absent when the crash could not be tied to one input. */
  input: z.string().optional(),
  /** Mutator seed of the job that found it. */
  seed: z.number().int().optional(),
  /** The executor's limits and root the finding was made with (the input engine's defaults otherwise). */
  options: z
    .object({
      timeoutMs: z.number().int().min(10).max(600_000).optional(),
      maxMemoryMb: z.number().int().min(32).max(16384).optional(),
      root: z.string().min(1).nullable().optional(),
    })
    .default({}),
});
export type InputReproducer = z.infer<typeof InputReproducer>;
