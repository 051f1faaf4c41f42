// What an optimizer release supports, found by asking it: each feature the
// generator may use is a small module the release must read, optimize at -O2
// and validate. A campaign then generates only what the release supports (an
// old release that cannot read `memory.fill` is not a finding per program), and
// a release that cannot read atomics at all is a one-line error at its start.
import { FuzzFarmError } from "@fuzzfarm/protocol";
import type { GenConfig } from "../gen/config";
import { encodeWat } from "../wasm-tools";
import { optimize, type OptimizerSource } from "../optimize";

/** Generator features an optimizer may lack, with the module that shows whether it has them. */
export const PROBED_FEATURES = {
  /** Threads: atomic loads, stores, RMWs, cmpxchg, wait32 / notify on a shared memory. Without it nothing can run. */
  atomics: `(i32.atomic.store offset=4 (local.get 0) (i32.atomic.rmw.add (local.get 0) (i32.const 1)))
    (drop (memory.atomic.notify offset=8 (local.get 0) (i32.const 1)))
    (i32.add (i32.atomic.rmw8.cmpxchg_u (local.get 0) (i32.const 0) (i32.const 1))
      (i32.add (i32.atomic.load16_u (local.get 0)) (memory.atomic.wait32 (local.get 0) (i32.const 1) (i64.const 0))))`,
  i64: `(i32.wrap_i64 (i64.add (i64.atomic.rmw32.xor_u (local.get 0) (i64.const 3))
      (i64.add (i64.atomic.load (local.get 0)) (i64.extend_i32_u (memory.atomic.wait64 (local.get 0) (i64.const 1) (i64.const 0))))))`,
  signExt: `(i32.extend8_s (i32.add (local.get 0) (i32.const 1)))`,
  bulkMemory: `(memory.fill (local.get 0) (i32.const 7) (i32.const 3)) (memory.copy (i32.const 16) (local.get 0) (i32.const 4)) (i32.load (i32.const 16))`,
  fence: `(i32.atomic.store (local.get 0) (i32.const 1)) (atomic.fence) (i32.atomic.load offset=4 (local.get 0))`,
  memoryGrow: `(drop (memory.grow (i32.const 1))) (memory.size)`,
} as const;
export type ProbedFeature = keyof typeof PROBED_FEATURES;

export interface OptimizerProbe {
  /** Feature -> null when supported, else what the release said. */
  missing: Partial<Record<ProbedFeature, string>>;
}

const probeModule = (body: string): string =>
  `(module (import "env" "memory" (memory 1 4 shared)) (func (export "f") (param i32) (result i32) ${body}))`;

const cache = new Map<string, Promise<OptimizerProbe>>();

/** Probe `src` (once per process and source). Throws FF_ERR_CONFIG when the release cannot work at all. */
export function probeOptimizer(src: OptimizerSource): Promise<OptimizerProbe> {
  const key = JSON.stringify(src);
  let p = cache.get(key);
  if (!p) {
    p = (async () => {
      const missing: OptimizerProbe["missing"] = {};
      for (const [f, body] of Object.entries(PROBED_FEATURES) as [ProbedFeature, string][]) {
        try {
          await optimize(await encodeWat(probeModule(body), `probe-${f}.wat`), "O2", src);
        } catch (e) {
          if (e instanceof FuzzFarmError) throw e;
          missing[f] = (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 200);
        }
      }
      if (missing.atomics) {
        const who = src.cmd ? `--optimizer-cmd '${src.cmd}'` : `--optimizer ${src.path ?? "(own)"}`;
        throw new FuzzFarmError("FF_ERR_CONFIG", `${who} cannot optimize a threads module (atomics on a shared memory): ${missing.atomics}`);
      }
      return { missing };
    })();
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}

/** `cfg` without what the release lacks (each generator option off that would emit it). */
export function withinOptimizer(cfg: GenConfig, probe: OptimizerProbe): GenConfig {
  const m = probe.missing;
  const out: GenConfig = {
    ...cfg,
    i64: cfg.i64 && !m.i64,
    signExt: cfg.signExt && !m.signExt,
    bulkMemory: cfg.bulkMemory && !m.bulkMemory,
    fence: cfg.fence && !m.fence,
  };
  return Object.freeze(out);
}

/** One line: what the release lacks and the generator leaves out (empty when nothing). */
export function probeSummary(probe: OptimizerProbe): string {
  const m = Object.entries(probe.missing);
  return m.length ? `the optimizer lacks ${m.map(([f, why]) => `${f} (${why})`).join(", ")}: programs are generated without them` : "";
}

/**
 * Before a campaign starts (`fuzzfarm fuzz --engine wasm`): the optimizer under test of its options must be
 * able to work at all. Throws FF_ERR_CONFIG in one line naming the release and what it said.
 */
export async function checkWasmCampaignOptions(options: { optimizer?: unknown; optimizerCmd?: unknown }): Promise<void> {
  const path = typeof options.optimizer === "string" ? options.optimizer : null;
  const cmd = typeof options.optimizerCmd === "string" ? options.optimizerCmd : null;
  if (path || cmd) await probeOptimizer({ path, cmd });
}
