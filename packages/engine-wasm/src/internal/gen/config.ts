// Generator configuration: what a generated program may contain.
import { FuzzFarmError, WASM_GENERATOR_LIMITS, WasmGenerator } from "@fuzzfarm/protocol";

/** A complete generator configuration (every field of WasmGenerator but the preset). */
const GEN_CONFIG = WasmGenerator.omit({ preset: true }).required();

export interface GenConfig {
  /** Total threads in the spawn tree, root included (1..8). Default 4. */
  threads: number;
  /** Deepest level of the spawn tree (root = 0). Default 2. */
  depth: number;
  /** Shared cells operated on by atomic read-modify-writes. Default 4. */
  cells: number;
  /** Top-level statements per thread body before spawns/joins are placed. Default 6. */
  stmts: number;
  /** Spinlocks scoped to one level of the spawn tree. Default true. */
  locks: boolean;
  /** Paired wait/notify between siblings. Default true. */
  waits: boolean;
  /** 64-bit cells and i64 atomics. Default true. */
  i64: boolean;
  /** Helper functions called from thread code (pure i32 arithmetic). Default 2. */
  helpers: number;
  /** Generator-placed yield points in ordinary code (probability per statement). Default 0.15. */
  yieldRate: number;
  /** Emit shared-everything-threads constructs (shared globals); generated and validated only. Default false. */
  sharedEverything: boolean;
  /**
   * Ordinary code over the thread's own memory: plain and atomic loads/stores of every width and
   * signedness, atomic read-modify-writes, let-bound temporaries, i64 arithmetic. Default true.
   */
  memOps: boolean;
  /** Sign-extension operators (`i32.extend8_s` ...; the SignExt feature); off = shift idioms only. Default true. */
  signExt: boolean;
  /** `memory.fill` / `memory.copy` on the thread's own memory (the bulk-memory feature). Default true. */
  bulkMemory: boolean;
  /**
   * The threads instruction set in all its forms on the thread's own memory (memOps programs; README
   * "Every instruction and form"): memarg offsets and alignment annotations, narrow RMW / cmpxchg
   * operands wider than the access, results dropped or used in part, wait32 / wait64 with matching
   * and other expected values and timeouts, notify with every count. Default true.
   */
  forms: boolean;
  /** `atomic.fence` between accesses. Default true. */
  fence: boolean;
}

export const DEFAULT_GEN_CONFIG: Readonly<GenConfig> = Object.freeze({
  threads: 4,
  depth: 2,
  cells: 4,
  stmts: 6,
  locks: true,
  waits: true,
  i64: true,
  helpers: 2,
  yieldRate: 0.15,
  sharedEverything: false,
  memOps: true,
  signExt: true,
  bulkMemory: true,
  forms: true,
  fence: true,
});

/** Named presets a job's `target.path` may name (see README). */
export const GEN_PRESETS: Record<string, Partial<GenConfig>> = {
  default: {},
  small: { threads: 2, depth: 1, cells: 2, stmts: 4 },
  wide: { threads: 6, depth: 1, cells: 6 },
  deep: { threads: 5, depth: 3 },
  rmw: { locks: false, waits: false, cells: 6, stmts: 8 },
  sync: { cells: 2, stmts: 4 },
  /** Optimizer testing: few threads, much ordinary code around them. */
  opt: { threads: 3, depth: 1, cells: 3, stmts: 12 },
};

/** Merge and check a user-supplied configuration; throws FF_ERR_CONFIG on a bad field. */
export function parseGenConfig(raw: Record<string, unknown> | undefined): GenConfig {
  const out: Record<string, unknown> = { ...DEFAULT_GEN_CONFIG };
  for (const [k, v] of Object.entries(raw ?? {})) {
    if (k === "preset") continue;
    if (!(k in DEFAULT_GEN_CONFIG)) throw new FuzzFarmError("FF_ERR_CONFIG", `unknown generator option '${k}'`);
    const def = DEFAULT_GEN_CONFIG[k as keyof GenConfig];
    if (typeof def === "boolean") {
      if (typeof v !== "boolean") throw new FuzzFarmError("FF_ERR_CONFIG", `generator option '${k}' must be a boolean`);
    } else {
      const [lo, hi] = WASM_GENERATOR_LIMITS[k as keyof typeof WASM_GENERATOR_LIMITS];
      if (typeof v !== "number" || !(v >= lo && v <= hi))
        throw new FuzzFarmError("FF_ERR_CONFIG", `generator option '${k}' must be a number in [${lo}, ${hi}]`);
    }
    out[k] = v;
  }
  const preset = raw?.preset;
  if (preset !== undefined) {
    if (typeof preset !== "string" || !(preset in GEN_PRESETS))
      throw new FuzzFarmError("FF_ERR_CONFIG", `unknown generator preset '${String(preset)}'`);
    for (const [k, v] of Object.entries(GEN_PRESETS[preset]!)) if (!(k in (raw ?? {}))) out[k] = v;
  }
  // every field was checked above; the schema gives the object its type
  return Object.freeze(GEN_CONFIG.parse(out));
}
