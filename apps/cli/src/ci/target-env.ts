// What `fuzzfarm ci` lets a pull request's code see. The head and the base
// are code the CI job does not trust, while the job's environment holds the
// farm's secrets (database URL, job key, admin token), GitHub's tokens and
// whatever else the workflow exports. A deny-list always misses one, so the
// code runs with an environment built from an allow-list instead: PATH, HOME,
// the locale, TZ, and the names the project's own config lists (`targetEnv`,
// FUZZFARM_TARGET_ENV). Its processes also run in the worker's sandbox
// (ci/sandbox.ts): no network but loopback, the data directory hidden.
import { FuzzFarmError } from "@fuzzfarm/protocol";

/** Always passed on when set: what programs need to find binaries, a home directory and the user's locale. */
export const TARGET_ENV_BASE: readonly string[] = ["PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TERM"];

/** The environment a pull request's code gets: the allow-listed names of `parent` (LC_* included), nothing else. */
export function targetEnvironment(parent: NodeJS.ProcessEnv, extraNames: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const allowed = new Set([...TARGET_ENV_BASE, ...extraNames]);
  for (const [k, v] of Object.entries(parent)) if (v !== undefined && (allowed.has(k) || k.startsWith("LC_"))) out[k] = v;
  return out;
}

/**
 * Run `fn` with process.env holding exactly `env`, then put the old one back.
 * The engines start target processes with this process's environment (as a
 * worker's do, whose environment is scrubbed once at start); the CLI has read
 * everything it needs from its own before (config, tokens), and nothing else
 * runs in this process while the replays do.
 */
export async function withProcessEnv<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  const replace = (next: NodeJS.ProcessEnv) => {
    for (const k of Object.keys(process.env)) delete process.env[k];
    for (const [k, v] of Object.entries(next)) if (v !== undefined) process.env[k] = v;
  };
  if (!env.PATH) throw new FuzzFarmError("FF_ERR_CONFIG", "PATH is not set: the replays cannot find their tools");
  replace(env);
  try {
    return await fn();
  } finally {
    replace(saved);
  }
}
