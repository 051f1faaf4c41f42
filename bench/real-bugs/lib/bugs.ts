// The real-bug benchmark's catalogue, bound to this folder: the bugs are the
// folders of bench/real-bugs/, their releases are installed into
// bench/out/real-bugs/<id>/ (gitignored). The mechanics (folder layout,
// npm aliases, install cache) live in @fuzzfarm/engine-node/testing, shared
// with the engine's test of this benchmark.
import { fileURLToPath } from "node:url";
import { cliDefaultStrategy, installBug as installInto, realBugs as bugsIn, type InstallResult, type RealBug } from "@fuzzfarm/engine-node/testing";

export const BUGS_DIR = fileURLToPath(new URL("../", import.meta.url));
export const CACHE_DIR = fileURLToPath(new URL("../../out/real-bugs/", import.meta.url));
export { cliDefaultStrategy, type InstallResult, type RealBug };

/** Every bug of bench/real-bugs/, ids containing `only` (comma-separated list allowed). */
export const realBugs = (only = ""): RealBug[] => bugsIn(BUGS_DIR, only);

/** Install the bug's pinned releases into bench/out/real-bugs/<id>/ unless they are there. */
export const installBug = (bug: RealBug, log?: (s: string) => void): InstallResult => installInto(bug, CACHE_DIR, log);
