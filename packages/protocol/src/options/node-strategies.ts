// The Node event fuzzer's strategy names, apart from the options schema so
// `fuzzfarm node` (a drop-in `node` that must start fast) can validate a
// --strategy flag without loading zod.

/** Perturbation strategies of the Node event fuzzer. */
export const NODE_STRATEGIES = ["none", "shuffle", "delay", "demux", "pct", "horizon", "mix"] as const;
export type NodeStrategy = (typeof NODE_STRATEGIES)[number];
