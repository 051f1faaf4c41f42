// GitHub App mode of the coordinator process, configured from the
// environment (read here once, in the app):
//   FUZZFARM_GITHUB_APP_ID                      the App's id
//   FUZZFARM_GITHUB_APP_PRIVATE_KEY[_FILE]      its private key (PEM)
//   FUZZFARM_GITHUB_WEBHOOK_SECRET[_FILE]       the webhook secret
//   FUZZFARM_GITHUB_TARGET                      fuzz target, relative to the repository root
//   FUZZFARM_GITHUB_TIME                        campaign length (default 5m)
//   FUZZFARM_GITHUB_JOB_SECONDS                 work per job (default: fuzzfarm ci's)
//   FUZZFARM_GITHUB_API_URL                     API root (default https://api.github.com; GHES: https://HOST/api/v3)
//   FUZZFARM_GITHUB_WORKDIR                     clones and worktrees (default <dataDir>-github: beside the data
//                                               directory, never inside it, which the fs sandbox leaves out of a target's view)
//   FUZZFARM_GITHUB_TARGET_ENV                  names of further variables the pull request's target needs (comma-separated; never a farm secret)
// Without an App id the webhook endpoint stays off (404).
//
// The `fuzzfarm ci` child runs the pull request's code (its workers' targets,
// its replays), so it does not inherit the coordinator's environment: it gets
// an allow-list (ciChildEnv): PATH, HOME, locale, the farm's non-secret
// settings, the names FUZZFARM_GITHUB_TARGET_ENV lists, and the connection
// secrets (Redis and database URL, job key) only as NAME_FILE paths to 0600
// files under the data directory, which the sandbox hides from targets. The
// admin, worker and CI tokens and the App's own secrets are never passed.
// The sandbox is required: FUZZFARM_SANDBOX=none is refused, auto becomes fs.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SECRET_ENV } from "@fuzzfarm/config";
import { fileURLToPath } from "node:url";
import { pullRequestChecks } from "@fuzzfarm/github";
import type { GitHubWebhookOptions } from "@fuzzfarm/web";
import { githubRunner } from "./github-runner";

const CLI_MAIN = fileURLToPath(new URL("../../cli/src/main.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** Variables the `fuzzfarm ci` child (and so its workers and targets) must never see. */
export const GITHUB_SECRET_VARS = ["FUZZFARM_GITHUB_APP_PRIVATE_KEY", "FUZZFARM_GITHUB_APP_PRIVATE_KEY_FILE", "FUZZFARM_GITHUB_WEBHOOK_SECRET", "FUZZFARM_GITHUB_WEBHOOK_SECRET_FILE", "GITHUB_TOKEN"];

function secret(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const file = env[`${name}_FILE`];
  return env[name] ?? (file ? readFileSync(file, "utf8").trim() : undefined);
}

/** Variables of the coordinator passed to the `fuzzfarm ci` child as they are: the system's basics and locale. */
const SYSTEM_VARS = /^(PATH|HOME|USER|LOGNAME|SHELL|TZ|TMPDIR|LANG|LANGUAGE|LC_[A-Z_]+)$/;
/** The farm's settings that are not secrets (the child needs them to join the same farm the same way). */
const FARM_SETTINGS = ["FUZZFARM_DATA_DIR", "FUZZFARM_QUEUE_PREFIX", "FUZZFARM_LOG_LEVEL", "FUZZFARM_SKIP_SELFTEST", "FUZZFARM_ENGINES", "FUZZFARM_JOB_SECONDS", "FUZZFARM_LOCK_MS", "FUZZFARM_ALLOWED_OPTIMIZERS", "FUZZFARM_WASM_ENGINES", "FUZZFARM_DENO_PATH", "FUZZFARM_BUN_PATH"];
/** Connection secrets the child needs, handed over as files. */
const CONNECTION_SECRETS = ["FUZZFARM_REDIS_URL", "REDIS_URL", "FUZZFARM_DATABASE_URL", "DATABASE_URL", "FUZZFARM_JOB_KEY"];

/**
 * The environment of the `fuzzfarm ci` child of GitHub App mode, built from an allow-list of `env` (the
 * coordinator's): never a token, never a secret's value (those the child needs are written to 0600 files under
 * `<dataDir>/github-ci-env` and passed as NAME_FILE). Throws on FUZZFARM_SANDBOX=none.
 */
export function ciChildEnv(env: NodeJS.ProcessEnv, dataDir: string): NodeJS.ProcessEnv {
  const sandbox = env.FUZZFARM_SANDBOX || "auto";
  if (sandbox === "none") throw new Error("GitHub App mode runs pull requests' code only in the sandbox: FUZZFARM_SANDBOX=none is refused (use fs, or net where fs does not work)");
  const out: NodeJS.ProcessEnv = { FUZZFARM_SANDBOX: sandbox === "auto" ? "fs" : sandbox };
  for (const [k, v] of Object.entries(env)) if (v !== undefined && (SYSTEM_VARS.test(k) || FARM_SETTINGS.includes(k))) out[k] = v;
  const never = new Set([...SECRET_ENV, ...GITHUB_SECRET_VARS, "FUZZFARM_GITHUB_APP_ID"]);
  for (const k of (env.FUZZFARM_GITHUB_TARGET_ENV ?? "").split(",").map((n) => n.trim()).filter(Boolean)) {
    if (never.has(k) || k.startsWith("FUZZFARM_")) throw new Error(`FUZZFARM_GITHUB_TARGET_ENV names ${k}: the farm's own settings and secrets never reach a pull request's code`);
    if (env[k] !== undefined) out[k] = env[k];
  }
  const dir = join(dataDir, "github-ci-env");
  for (const name of CONNECTION_SECRETS) {
    if (env[`${name}_FILE`]) out[`${name}_FILE`] = resolve(env[`${name}_FILE`]!);
    else if (env[name]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
      const file = join(dir, name);
      writeFileSync(file, env[name]!, { mode: 0o600 });
      chmodSync(file, 0o600);
      out[`${name}_FILE`] = file;
    }
  }
  return out;
}

export function githubAppFromEnv(env: NodeJS.ProcessEnv, dataDir: string, log: (line: string) => void): GitHubWebhookOptions | undefined {
  const appId = env.FUZZFARM_GITHUB_APP_ID;
  if (!appId) return undefined;
  const privateKey = secret(env, "FUZZFARM_GITHUB_APP_PRIVATE_KEY");
  const webhookSecret = secret(env, "FUZZFARM_GITHUB_WEBHOOK_SECRET");
  const target = env.FUZZFARM_GITHUB_TARGET;
  if (!privateKey || !webhookSecret || !target) throw new Error("FUZZFARM_GITHUB_APP_ID needs FUZZFARM_GITHUB_APP_PRIVATE_KEY, FUZZFARM_GITHUB_WEBHOOK_SECRET and FUZZFARM_GITHUB_TARGET");
  const childEnv = ciChildEnv(env, dataDir);
  const start = pullRequestChecks({
    client: { auth: { kind: "app", appId, privateKey }, baseUrl: env.FUZZFARM_GITHUB_API_URL || undefined },
    runner: githubRunner({ workDir: env.FUZZFARM_GITHUB_WORKDIR ?? `${dataDir}-github`, target, time: env.FUZZFARM_GITHUB_TIME ?? "5m", jobSeconds: env.FUZZFARM_GITHUB_JOB_SECONDS, cli: { main: CLI_MAIN, execArgv: ["--import", "tsx"], cwd: REPO_ROOT }, env: childEnv, log }),
    log,
  });
  log(`GitHub App ${appId}: webhook on /api/github/webhook, target ${target}`);
  return { webhookSecret, onCheckRequest: start };
}
