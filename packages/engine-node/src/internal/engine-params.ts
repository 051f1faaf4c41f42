// Engine-level knobs carried in NodeOptions.params next to the strategy's
// own parameters (the protocol keeps one numeric record).
import { cpus } from "node:os";

export interface EngineKnobs {
  /** Run in warm worker threads (1) or spawn a process per run (0). Default 1 for JavaScript targets. */
  warm: boolean;
  /** Runs in flight at once. Default: number of CPUs. */
  jobs: number;
  /** Collect istanbul coverage and `cov:` features (1) or not (0). Default 1. */
  coverage: boolean;
  /** Replays of a finding's schedule to confirm it. Default 3. */
  confirmRuns: number;
}

const KNOB_NAMES = new Set(["warm", "jobs", "coverage", "confirmRuns"]);

/** Split a params record into engine knobs and the strategy's parameters. */
export function splitParams(params: Record<string, number>): { knobs: EngineKnobs; strategyParams: Record<string, number> } {
  const strategyParams: Record<string, number> = {};
  for (const [k, v] of Object.entries(params)) if (!KNOB_NAMES.has(k)) strategyParams[k] = v;
  return {
    knobs: {
      warm: params.warm !== 0,
      jobs: Math.max(1, Math.trunc(params.jobs ?? cpus().length)),
      coverage: params.coverage !== 0,
      confirmRuns: Math.max(1, Math.trunc(params.confirmRuns ?? 3)),
    },
    strategyParams,
  };
}
