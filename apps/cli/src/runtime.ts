// How this CLI runs: from the built bundle (scripts/build.mjs defines
// __FUZZFARM_BUNDLE__ and lays files out as described there) or from the
// TypeScript sources through tsx (a checkout, the tests). Commands that start
// processes of their own (local workers) or name a command to the user ask
// here.
import { fileURLToPath } from "node:url";

declare const __FUZZFARM_BUNDLE__: boolean | undefined;

/** True when running from the built bundle. */
export const BUNDLED: boolean = typeof __FUZZFARM_BUNDLE__ !== "undefined" && __FUZZFARM_BUNDLE__ === true;

/**
 * The process a local worker runs: the bundle's dist/worker.js (this file is
 * mirrored at dist/r/apps/cli/src/runtime.ts, so its import.meta.url points
 * four levels below dist/), else the worker app's TypeScript entry through
 * tsx (resolved from FuzzFarm's own node_modules, not the user's directory).
 */
export function workerCommandLine(): string[] {
  if (BUNDLED) return [fileURLToPath(new URL("../../../../worker.js", import.meta.url))];
  return ["--import", import.meta.resolve("tsx"), fileURLToPath(new URL("../../worker/src/main.ts", import.meta.url))];
}

/** What a user runs to set up services and the database: the repository's script in a checkout, the command when installed. */
export const SETUP_COMMAND = BUNDLED ? "npx fuzzfarm up" : "npm run setup";
