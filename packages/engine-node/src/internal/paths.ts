// Where the in-process parts live, and the node flags a target needs.
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";

export const PRELOAD_DIR = fileURLToPath(new URL("./preload/", import.meta.url));
export const PRELOAD = join(PRELOAD_DIR, "index.cjs");
export const WARM_WORKER_HOST = join(PRELOAD_DIR, "warm-host.cjs");
/** Runs one input through a `fuzz(data)` target (input fuzzing under the perturbed event loop). */
export const FUZZ_DRIVER = join(PRELOAD_DIR, "fuzz-driver.mjs");

const require = createRequire(import.meta.url);

/** TypeScript targets run through tsx (resolved from this package); for the fuzz driver, its target decides. */
export function execArgvFor(script: string, args: readonly string[] = []): string[] {
  if (script === FUZZ_DRIVER && args[0]) script = args[0];
  if (!/\.[cm]?tsx?$/.test(script)) return [];
  return ["--import", pathToFileURL(require.resolve("tsx")).href, "--enable-source-maps"];
}
