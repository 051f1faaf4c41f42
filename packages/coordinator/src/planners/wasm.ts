// Wasm threads harness: a job is (generator configuration, seed range,
// strategy). Productive generator configurations are nudged; others explored.
import { selectSeeds } from "@fuzzfarm/corpus";
import type { Planner } from "./types";
import { freshSeed, nudgeNumbers } from "./nudge";

export const WASM_EXPLORE_P = 0.3;

export const planWasm: Planner = ({ jobId, campaignId, target, config, corpus, rng, now }) => {
  const base = { ...config.options } as Record<string, unknown>;
  let chosen: string[] = [];
  if (corpus.length && !rng.bool(WASM_EXPLORE_P)) {
    const [e] = selectSeeds(corpus, 1, rng, { now, halfLife: 60_000 });
    const s = e!.strategy as { generator?: Record<string, unknown>; strategy?: string };
    if (s.generator) base.generator = nudgeNumbers(s.generator, rng);
    if (s.strategy) base.strategy = s.strategy;
    chosen = [e!.id];
  }
  // Engine x tier matrix: each job compares the baseline with one configuration, in turn over jobs.
  const matrix = Array.isArray(base.engineMatrix) ? (base.engineMatrix as string[]) : [];
  if (matrix.length) base.engines = [rng.pick(matrix)];
  return {
    chosen,
    payload: {
      engine: "wasm",
      jobId,
      campaignId,
      kind: "fuzz",
      target,
      budget: { runs: config.runsPerJob ?? 400, seconds: config.jobSeconds },
      seeds: [],
      options: { ...base, seedStart: freshSeed(rng) },
    },
  };
};
