// Node event fuzzer: a job is (strategy, parameters, seed range). Most jobs
// start from a productive corpus entry with nudged parameters and new seeds;
// some try a strategy at random so no strategy is starved.
import { selectSeeds } from "@fuzzfarm/corpus";
import type { Planner } from "./types";
import { freshSeed, nudgeNumbers } from "./nudge";

export const NODE_STRATEGY_CHOICES = ["shuffle", "delay", "demux", "pct", "mix"] as const;
/** Probability of exploring a random strategy instead of mutating a corpus entry. */
export const NODE_EXPLORE_P = 0.3;

export const planNode: Planner = ({ jobId, campaignId, target, config, corpus, rng, now }) => {
  const base = { ...config.options } as Record<string, unknown>;
  let chosen: string[] = [];
  if (corpus.length && !rng.bool(NODE_EXPLORE_P)) {
    const [e] = selectSeeds(corpus, 1, rng, { now, halfLife: 60_000 });
    const s = e!.strategy as { strategy?: string; params?: Record<string, number> };
    if (s.strategy) base.strategy = s.strategy;
    // a guided entry's params name the racing pair it reverses (site hashes): nudging them would name no pair
    if (s.params) base.params = s.strategy === "guided" ? { ...s.params } : nudgeNumbers(s.params, rng);
    chosen = [e!.id];
  } else if (!config.options.strategy || config.options.strategy === "mix") {
    base.strategy = rng.pick(NODE_STRATEGY_CHOICES);
  }
  return {
    chosen,
    payload: {
      engine: "node",
      jobId,
      campaignId,
      kind: "fuzz",
      target,
      budget: { runs: config.runsPerJob ?? 50, seconds: config.jobSeconds },
      seeds: [],
      options: { ...base, seedStart: freshSeed(rng) },
    },
  };
};
