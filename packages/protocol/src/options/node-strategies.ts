// The Node event fuzzer's strategy names, apart from the options schema so
// `fuzzfarm node` (a drop-in `node` that must start fast) can validate a
// --strategy flag without loading zod.

/** Perturbation strategies of the Node event fuzzer. */
export const NODE_STRATEGIES = ["none", "shuffle", "delay", "demux", "pct", "horizon", "late", "mix"] as const;
export type NodeStrategy = (typeof NODE_STRATEGIES)[number];

/**
 * Strategies a job, corpus entry or reproducer may name: the user's, plus
 * "guided", which the engine picks itself (it reverses one racing pair of an
 * observation run, named by params guideA/guideB). A guided run is replayed
 * and continued like any other, so jobs built from its finding or corpus
 * entry carry it.
 */
export const NODE_JOB_STRATEGIES = [...NODE_STRATEGIES, "guided"] as const;
export type NodeJobStrategy = (typeof NODE_JOB_STRATEGIES)[number];

/** Is `s` a strategy a user may name? */
export const isNodeStrategy = (s: string): s is NodeStrategy => (NODE_STRATEGIES as readonly string[]).includes(s);
/** Is `s` a strategy a job, corpus entry or reproducer may name? */
export const isNodeJobStrategy = (s: string): s is NodeJobStrategy => (NODE_JOB_STRATEGIES as readonly string[]).includes(s);
