// @fuzzfarm/engine-node/testing: what the engine's evidence needs besides the
// engine itself. The real-bug catalogue (folders of bench/real-bugs/, their
// releases installed from npm) is read by the benchmark's scripts and by
// test/real-bugs.test.ts through this entry, so neither imports the other.
export { realBugs, installBug, cliDefaultStrategy, type RealBug, type InstallResult } from "./internal/real-bug-catalogue";
