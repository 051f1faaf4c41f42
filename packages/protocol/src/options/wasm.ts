import { z } from "zod";

/** Options of the Wasm threads harness (owned by packages/engine-wasm). */
export const WasmOptions = z.object({
  /** Generator configuration (threads, depth, features...). */
  generator: z.record(z.string(), z.unknown()).default({}),
  /** Perturbation strategy of the runner. */
  strategy: z.string().default("mix"),
  /** First generator seed; program i uses seedStart + i. */
  seedStart: z.number().int().default(0),
  /** Schedules tried per program. */
  runsPerProgram: z.number().int().min(1).max(100_000).default(20),
  /** Directory of a `binaryen` npm package under test, or null for the project's own. */
  optimizer: z.string().nullable().default(null),
  /** A shell command `wasm-opt ...` used as the optimizer under test. */
  optimizerCmd: z.string().nullable().default(null),
  /**
   * Break the module under test the way a buggy compiler would (`rmw-plain`, `drop-notify`, `narrow`,
   * `reorder`), in every configuration (`all`), only the Liftoff tier or only the optimized module: proves
   * the oracles see bugs, in the farm as on the CLI. Default null (no fault).
   */
  fault: z
    .object({ kind: z.enum(["rmw-plain", "drop-notify", "narrow", "reorder"]), where: z.enum(["all", "liftoff", "optimized"]).default("all") })
    .nullable()
    .default(null),
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
