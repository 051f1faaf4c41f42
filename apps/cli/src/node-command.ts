// `fuzzfarm node`: the Node event fuzzer's own command line, imported by name
// so the bundle keeps only what it reaches (scripts/build.mjs marks the
// workspace packages free of import side effects): a drop-in `node` must not
// load the farm engine, its schemas or the database client.
export { runNodeCli, startNodeCliInProcess } from "@fuzzfarm/engine-node";
