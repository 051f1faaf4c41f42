// Engine-level knobs of a job (NodeOptions warm / jobs / coverage /
// confirmRuns, typed booleans and counts) resolved on this worker, apart from
// the strategy's own numeric parameters (NodeOptions.params).
import { cpus } from "node:os";
import type { NodeOptions } from "@fuzzfarm/protocol";

export interface EngineKnobs {
  /** Run in warm worker threads (true) or spawn a process per run (false). */
  warm: boolean;
  /** Runs in flight at once (the option, else this worker's number of CPUs). */
  jobs: number;
  /** Collect istanbul coverage and `cov:` features. */
  coverage: boolean;
  /** Replays of a finding's schedule to confirm it. */
  confirmRuns: number;
}

/** A job's engine knobs (defaults resolved here: `jobs` is this machine's CPU count) and its strategy parameters. */
export function splitParams(o: Pick<NodeOptions, "params" | "warm" | "jobs" | "coverage" | "confirmRuns">): { knobs: EngineKnobs; strategyParams: Record<string, number> } {
  return {
    knobs: { warm: o.warm, jobs: o.jobs ?? cpus().length, coverage: o.coverage, confirmRuns: o.confirmRuns },
    strategyParams: { ...o.params },
  };
}
