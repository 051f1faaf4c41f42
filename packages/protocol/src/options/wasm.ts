// The Wasm threads harness's data as it crosses packages: its job options
// (what `-o` sets), the generator configuration, the runner strategies, what a
// corpus entry records and the reproducer (generated program, schedule,
// configuration). Owned by packages/engine-wasm; typed here so the
// coordinator, the worker and the database read them without re-casting.
import { z } from "zod";

/**
 * Perturbation strategies of the wasm runner (engine-wasm runner/strategies.ts). `dfs` and `auto`
 * explore litmus modules only; `pct:D` sets PCT's depth.
 */
export const WASM_STRATEGIES = ["barrier", "delay", "token", "pct", "race", "mix", "dfs", "auto"] as const;
export type WasmStrategyName = (typeof WASM_STRATEGIES)[number];

/** A runner strategy as a job names it: one of WASM_STRATEGIES, or `pct:D`. */
export const WasmStrategy = z.union([z.enum(WASM_STRATEGIES), z.templateLiteral(["pct:", z.number().int().min(1)])]);
export type WasmStrategy = z.infer<typeof WasmStrategy>;

/** Bounds of the numeric generator fields (inclusive). */
export const WASM_GENERATOR_LIMITS = {
  threads: [1, 8],
  depth: [0, 4],
  cells: [1, 12],
  stmts: [1, 20],
  helpers: [0, 6],
  yieldRate: [0, 1],
} as const satisfies Record<string, readonly [number, number]>;

const limited = (k: keyof typeof WASM_GENERATOR_LIMITS, int = true) => {
  const [lo, hi] = WASM_GENERATOR_LIMITS[k];
  return (int ? z.number().int() : z.number()).min(lo).max(hi).optional();
};

/**
 * Generator configuration overrides (engine-wasm gen/config.ts GenConfig, every field optional; the
 * target's preset gives the rest). Unknown fields are refused.
 */
export const WasmGenerator = z.strictObject({
  /** A named preset the other fields override. */
  preset: z.string().optional(),
  /** Total threads in the spawn tree, root included. */
  threads: limited("threads"),
  /** Deepest level of the spawn tree (root = 0). */
  depth: limited("depth"),
  /** Shared cells operated on by atomic read-modify-writes. */
  cells: limited("cells"),
  /** Top-level statements per thread body. */
  stmts: limited("stmts"),
  /** Spinlocks scoped to one level of the spawn tree. */
  locks: z.boolean().optional(),
  /** Paired wait/notify between siblings. */
  waits: z.boolean().optional(),
  /** 64-bit cells and i64 atomics. */
  i64: z.boolean().optional(),
  /** Helper functions called from thread code. */
  helpers: limited("helpers"),
  /** Generator-placed yield points (probability per statement). */
  yieldRate: limited("yieldRate", false),
  /** Shared-everything-threads constructs. */
  sharedEverything: z.boolean().optional(),
  /** Ordinary code over the thread's own memory. */
  memOps: z.boolean().optional(),
  /** Sign-extension operators. */
  signExt: z.boolean().optional(),
  /** memory.fill / memory.copy. */
  bulkMemory: z.boolean().optional(),
  /** The threads instruction set in every form (offsets, alignment, narrow operands, wait/notify forms). */
  forms: z.boolean().optional(),
  /** atomic.fence. */
  fence: z.boolean().optional(),
});
export type WasmGenerator = z.infer<typeof WasmGenerator>;

/** A fault injected into the module under test (see WasmOptions.fault). */
export const WasmFault = z.object({
  kind: z.enum(["rmw-plain", "drop-notify", "narrow", "reorder"]),
  where: z.enum(["all", "liftoff", "optimized"]).default("all"),
});
export type WasmFault = z.infer<typeof WasmFault>;

/** Options of the Wasm threads harness (owned by packages/engine-wasm). */
export const WasmOptions = z.object({
  /** Generator configuration overrides (threads, depth, features...). Default {} (the target's preset). */
  generator: WasmGenerator.default({}),
  /** Perturbation strategy of the runner. Default "mix". */
  strategy: WasmStrategy.default("mix"),
  /** First generator seed; program i uses seedStart + i. Default 0. */
  seedStart: z.number().int().default(0),
  /** Schedules tried per program. Default 20. */
  runsPerProgram: z.number().int().min(1).max(100_000).default(20),
  /** Directory of a `binaryen` npm package under test, or null for the project's own. Default null. */
  optimizer: z.string().nullable().default(null),
  /** A shell command `wasm-opt ...` used as the optimizer under test. Default null. */
  optimizerCmd: z.string().nullable().default(null),
  /**
   * Break the module under test the way a buggy compiler would (`rmw-plain`, `drop-notify`, `narrow`,
   * `reorder`), in every configuration (`all`), only the Liftoff tier or only the optimized module: proves
   * the oracles see bugs, in the farm as on the CLI. Default null (no fault).
   */
  fault: WasmFault.nullable().default(null),
  /**
   * Engine configurations compared with the baseline under the same schedules (the `engine` oracle):
   * `deno`, `deno:liftoff`, `bun`, `bun:ipint`... (engine-wasm README "Engines"). Default none.
   */
  engines: z.array(z.string()).default([]),
  /**
   * Farm planning: the engine configurations of a campaign. Each job compares one of them (chosen in
   * turn by the planner, into `engines`), so the matrix spreads over jobs and workers. Default none.
   */
  engineMatrix: z.array(z.string()).default([]),
});
export type WasmOptions = z.infer<typeof WasmOptions>;

/** What a wasm corpus entry records: the generator configuration and seed of a productive program. */
export const WasmSeedStrategy = z.object({
  generator: WasmGenerator.optional(),
  seed: z.number().int().optional(),
  strategy: WasmStrategy.optional(),
});
export type WasmSeedStrategy = z.infer<typeof WasmSeedStrategy>;

/** One run's schedule as the runner replays it (engine-wasm runner/supervisor.ts RunSpec). */
export const WasmRunSpec = z.object({
  mode: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  seed: z.number(),
  /** The strategy the run was made with, as the runner names it. */
  strategy: z.string(),
  barrier: z.boolean().optional(),
  startOrder: z.array(z.number()).optional(),
  focus: z.number().optional(),
  spinPM: z.number().optional(),
  sleepPM: z.number().optional(),
  maxSpin: z.number().optional(),
  maxSleepUs: z.number().optional(),
  startDelayUs: z.number().optional(),
  priorities: z.array(z.number()).optional(),
  changePoints: z.array(z.number()).optional(),
  replay: z.array(z.number()).optional(),
  wantCands: z.boolean().optional(),
  randomTail: z.boolean().optional(),
  sleep: z.number().optional(),
  freeEntry: z.boolean().optional(),
  siteWidths: z.array(z.number()).optional(),
  wakeMs: z.number().optional(),
  lostMs: z.number().optional(),
});
export type WasmRunSpec = z.infer<typeof WasmRunSpec>;

/** Optimizer levels of the optimizer under test (engine-wasm optimize.ts). */
export const WASM_OPT_LEVELS = ["O1", "O2", "O3", "Os"] as const;
export const WasmOptLevel = z.enum(WASM_OPT_LEVELS);

/** The configuration a finding was seen in: an engine tier and an optimizer level (or none). */
export const WasmRunConfig = z.object({ tier: z.string(), opt: WasmOptLevel.nullable() });

/** A JSON value (a generated program tree as engine-wasm encodes it: bigints as {$big}). */
export const JsonValue = z.json();
export type JsonValue = z.infer<typeof JsonValue>;

/** A wasm finding's recorded run: the program (or litmus file), its schedule and configuration. */
export const WasmTrace = z.object({
  /** Litmus findings: the module. */
  file: z.string().optional(),
  /** Generated programs: the (minimized) program as text and as engine-wasm's program tree. */
  wat: z.string().optional(),
  program: JsonValue.optional(),
  /** The result every schedule must give. */
  expected: z.string().optional(),
  outcome: z.string().nullable().optional(),
  spec: WasmRunSpec.nullable().optional(),
  decisions: z.array(z.number()).optional(),
  config: WasmRunConfig.optional(),
  oracle: z.string().optional(),
});
export type WasmTrace = z.infer<typeof WasmTrace>;

/** Everything needed to run a wasm finding again. */
export const WasmReproducer = z.object({
  engine: z.literal("wasm"),
  /** Generator seed of the program (or the litmus schedule seed). */
  seed: z.number().int().optional(),
  options: z
    .object({
      generator: WasmGenerator.optional(),
      /** The strategy the run was made with, as the runner names it. */
      strategy: z.string().optional(),
      tier: z.string().optional(),
      opt: WasmOptLevel.nullable().optional(),
      litmus: z.boolean().optional(),
      runIndex: z.number().int().optional(),
      scheduleSeed: z.number().int().optional(),
      runsPerProgram: z.number().int().optional(),
      fault: WasmFault.nullable().optional(),
      optimizer: z.string().nullable().optional(),
      optimizerCmd: z.string().nullable().optional(),
    })
    .default({}),
  trace: WasmTrace.optional(),
});
export type WasmReproducer = z.infer<typeof WasmReproducer>;
