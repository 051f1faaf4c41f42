// `fuzzfarm wasm`: the Wasm threads harness's own command line, imported by
// name so its chunk holds only what the harness reaches (see node-command.ts).
export { runWasmCli } from "@fuzzfarm/engine-wasm";
