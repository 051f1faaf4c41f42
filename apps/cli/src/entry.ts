// Entry of the built command, dist/fuzzfarm.cjs (scripts/build.mjs). It is
// CommonJS because an ES module entry point has already used libuv's thread
// pool when its first line runs (Node reads it with fs.promises), which fixes
// the pool at 4 threads; from here, `fuzzfarm node script.js` can still run
// the program in this very process with the single pool thread a recorded run
// needs, one Node start-up instead of two (engine-node's in-process.ts says
// which runs qualify). Everything else goes on in the usual entry, bin.ts,
// built as the ES module dist/fuzzfarm.js next to this file.
import { startNodeCliInProcess } from "./node-command";

const argv = process.argv.slice(2);
const first = argv.findIndex((a) => !a.startsWith("-"));

// `__filename` is this bundle: its frames are left out of the program's error reports like the interceptor's.
if (!(first >= 0 && argv[first] === "node" && startNodeCliInProcess(argv.slice(first + 1), [__filename]))) {
  void import("./bin");
}
