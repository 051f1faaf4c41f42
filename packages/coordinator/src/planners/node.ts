// Node event fuzzer: a job is (strategy, parameters, seed range). Most jobs
// start from a productive corpus entry with nudged parameters and new seeds;
// some try a strategy at random so no strategy is starved.
import { selectSeeds } from "@fuzzfarm/corpus";
import { NodeSeedStrategy, parseJob, type EngineOptionsInput, type NodeStrategy } from "@fuzzfarm/protocol";
import type { EnginePlanner } from "./types";
import { freshSeed, nudgeNumbers } from "./nudge";

export const NODE_STRATEGY_CHOICES = ["shuffle", "delay", "demux", "pct", "horizon", "late", "mix"] as const satisfies readonly NodeStrategy[];
/** Probability of exploring a random strategy instead of mutating a corpus entry. */
export const NODE_EXPLORE_P = 0.3;

export const planNode: EnginePlanner<"node"> = ({ jobId, campaignId, target, config, corpus, rng, now }) => {
  const base: EngineOptionsInput<"node"> = { ...config.options };
  let chosen: string[] = [];
  if (corpus.length && !rng.bool(NODE_EXPLORE_P)) {
    const [e] = selectSeeds(corpus, 1, rng, { now, halfLife: 60_000 });
    // an entry whose stored strategy no longer reads is continued with the campaign's options
    const s = NodeSeedStrategy.safeParse(e!.strategy);
    if (s.success) {
      base.strategy = s.data.strategy;
      // a guided entry's params name the racing pair it reverses (site hashes): nudging them would name no pair
      base.params = s.data.strategy === "guided" ? { ...s.data.params } : nudgeNumbers(s.data.params, rng);
    }
    chosen = [e!.id];
  } else if (!config.options?.strategy || config.options.strategy === "mix") {
    base.strategy = rng.pick(NODE_STRATEGY_CHOICES);
  }
  return {
    chosen,
    payload: parseJob({
      engine: "node",
      jobId,
      campaignId,
      kind: "fuzz",
      target,
      budget: { runs: config.runsPerJob ?? 50, seconds: config.jobSeconds },
      seeds: [],
      options: { ...base, seedStart: freshSeed(rng) },
    }),
  };
};
