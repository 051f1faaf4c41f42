// Input engine: ship the most promising seeds (power schedule) and a fresh
// mutation seed; the worker fuzzes from them for jobSeconds.
import { selectSeeds } from "@fuzzfarm/corpus";
import type { Planner } from "./types";
import { freshSeed } from "./nudge";

/** Seeds shipped per job. */
export const INPUT_SEEDS_PER_JOB = 32;

export const planInput: Planner = ({ jobId, campaignId, target, config, corpus, rng, now }) => {
  const chosen = selectSeeds(corpus, INPUT_SEEDS_PER_JOB, rng, { now, halfLife: 60_000 });
  return {
    chosen: chosen.map((c) => c.id),
    payload: {
      engine: "input",
      jobId,
      campaignId,
      kind: "fuzz",
      target,
      budget: { runs: 1_000_000_000, seconds: config.jobSeconds },
      seeds: chosen.map((c) => ({ id: c.id, data: Buffer.from(c.data).toString("base64"), strategy: c.strategy })),
      options: { ...config.options, seed: freshSeed(rng) },
    },
  };
};
