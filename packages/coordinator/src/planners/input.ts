// Input engine: ship the most promising seeds (power schedule) and a fresh
// mutation seed; the worker fuzzes from them for jobSeconds.
import { selectSeeds } from "@fuzzfarm/corpus";
import { InputSeedStrategy, parseJob } from "@fuzzfarm/protocol";
import type { EnginePlanner } from "./types";
import { freshSeed } from "./nudge";

/** Seeds shipped per job. */
export const INPUT_SEEDS_PER_JOB = 32;

export const planInput: EnginePlanner<"input"> = ({ jobId, campaignId, target, config, corpus, rng, now }) => {
  const chosen = selectSeeds(corpus, INPUT_SEEDS_PER_JOB, rng, { now, halfLife: 60_000 });
  return {
    chosen: chosen.map((c) => c.id),
    payload: parseJob({
      engine: "input",
      jobId,
      campaignId,
      kind: "fuzz",
      target,
      budget: { runs: 1_000_000_000, seconds: config.jobSeconds },
      // an entry whose stored strategy no longer reads is shipped as a plain seed
      seeds: chosen.map((c) => ({ id: c.id, data: Buffer.from(c.data).toString("base64"), strategy: InputSeedStrategy.catch({}).parse(c.strategy) })),
      options: { ...config.options, seed: freshSeed(rng) },
    }),
  };
};
