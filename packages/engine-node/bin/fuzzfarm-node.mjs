#!/usr/bin/env node
// Try the Node event fuzzer alone: `fuzzfarm-node [options] [--] script.js [args...]`.
// The main CLI (apps/cli) delegates `fuzzfarm node` to the same runNodeCli.
import { register } from "tsx/esm/api";

register();
const { runNodeCli } = await import("../src/index.ts");
process.exitCode = await runNodeCli(process.argv.slice(2));
