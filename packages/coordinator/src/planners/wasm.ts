// Wasm threads harness: a job is (generator configuration, seed range,
// strategy). Productive generator configurations are nudged (within the
// generator's bounds); others explored.
import { selectSeeds } from "@fuzzfarm/corpus";
import { parseJob, WASM_GENERATOR_LIMITS, WasmSeedStrategy, type EngineOptionsInput, type WasmGenerator } from "@fuzzfarm/protocol";
import type { EnginePlanner } from "./types";
import { freshSeed, nudgeNumbers } from "./nudge";

export const WASM_EXPLORE_P = 0.3;

/** A generator configuration with its numeric fields brought back within WASM_GENERATOR_LIMITS (a nudge may overshoot). */
export function clampGenerator(g: WasmGenerator): WasmGenerator {
  const out = { ...g };
  for (const [k, [lo, hi]] of Object.entries(WASM_GENERATOR_LIMITS) as [keyof typeof WASM_GENERATOR_LIMITS, readonly [number, number]][]) {
    const v = out[k];
    if (v !== undefined) out[k] = Math.min(hi, Math.max(lo, v));
  }
  return out;
}

export const planWasm: EnginePlanner<"wasm"> = ({ jobId, campaignId, target, config, corpus, rng, now }) => {
  const base: EngineOptionsInput<"wasm"> = { ...config.options };
  let chosen: string[] = [];
  if (corpus.length && !rng.bool(WASM_EXPLORE_P)) {
    const [e] = selectSeeds(corpus, 1, rng, { now, halfLife: 60_000 });
    // an entry whose stored strategy no longer reads is continued with the campaign's options
    const s = WasmSeedStrategy.safeParse(e!.strategy);
    if (s.success && s.data.generator) base.generator = clampGenerator(nudgeNumbers(s.data.generator, rng));
    if (s.success && s.data.strategy) base.strategy = s.data.strategy;
    chosen = [e!.id];
  }
  // Engine x tier matrix: each job compares the baseline with one configuration, in turn over jobs.
  const matrix = base.engineMatrix ?? [];
  if (matrix.length) base.engines = [rng.pick(matrix)];
  return {
    chosen,
    payload: parseJob({
      engine: "wasm",
      jobId,
      campaignId,
      kind: "fuzz",
      target,
      budget: { runs: config.runsPerJob ?? 400, seconds: config.jobSeconds },
      seeds: [],
      options: { ...base, seedStart: freshSeed(rng) },
    }),
  };
};
