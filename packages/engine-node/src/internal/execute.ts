// One execution and everything the engine derives from it: the outcome,
// the fingerprint, race pairs and (optionally) coverage features.
import type { OutcomeFor } from "@fuzzfarm/protocol";
import { runSpawned, type RunResult, type RunSpec } from "./spawn";
import type { WarmPool } from "./warm";
import { classify } from "./outcome";
import { fingerprint, racePairs, type Trace } from "./trace";
import { coverageFeatures, toIstanbul, type IstanbulFileCoverage } from "./coverage";

export interface Execution {
  spec: RunSpec;
  result: RunResult;
  outcome: OutcomeFor<"node">;
  trace: Trace | null;
  fingerprint: string;
  /** `siteA|siteB` pairs pending together, A ran first. */
  racePairs: string[];
  /** istanbul coverage of this run (when spec.coverage). */
  coverage: Record<string, IstanbulFileCoverage> | null;
  /** Feature keys: `race:<pair>` and `cov:<file>:s<N>`. */
  features: string[];
}

export async function execute(spec: RunSpec, pool?: WarmPool | null): Promise<Execution> {
  const result = pool ? await pool.run(spec) : await runSpawned(spec);
  const trace = result.trace;
  const outcome = classify(result, spec);
  const pairs = trace ? racePairs(trace) : [];
  const coverage = spec.coverage && trace?.coverage ? await toIstanbul(trace.coverage) : null;
  const features = pairs.map((p) => `race:${p}`);
  if (coverage) features.push(...coverageFeatures(coverage, spec.cwd ?? process.cwd()));
  return { spec, result, outcome, trace, fingerprint: trace ? fingerprint(trace) : "", racePairs: pairs, coverage, features };
}
