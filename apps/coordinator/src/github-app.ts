// GitHub App mode of the coordinator process, configured from the
// environment (read here once, in the app):
//   FUZZFARM_GITHUB_APP_ID                      the App's id
//   FUZZFARM_GITHUB_APP_PRIVATE_KEY[_FILE]      its private key (PEM)
//   FUZZFARM_GITHUB_WEBHOOK_SECRET[_FILE]       the webhook secret
//   FUZZFARM_GITHUB_TARGET                      fuzz target, relative to the repository root
//   FUZZFARM_GITHUB_TIME                        campaign length (default 5m)
//   FUZZFARM_GITHUB_JOB_SECONDS                 work per job (default: fuzzfarm ci's)
//   FUZZFARM_GITHUB_API_URL                     API root (default https://api.github.com; GHES: https://HOST/api/v3)
//   FUZZFARM_GITHUB_WORKDIR                     clones and worktrees (default <dataDir>/github)
// Without an App id the webhook endpoint stays off (404).
import { readFileSync } from "node:fs";
import { join } from "node:path";
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

export function githubAppFromEnv(env: NodeJS.ProcessEnv, dataDir: string, log: (line: string) => void): GitHubWebhookOptions | undefined {
  const appId = env.FUZZFARM_GITHUB_APP_ID;
  if (!appId) return undefined;
  const privateKey = secret(env, "FUZZFARM_GITHUB_APP_PRIVATE_KEY");
  const webhookSecret = secret(env, "FUZZFARM_GITHUB_WEBHOOK_SECRET");
  const target = env.FUZZFARM_GITHUB_TARGET;
  if (!privateKey || !webhookSecret || !target) throw new Error("FUZZFARM_GITHUB_APP_ID needs FUZZFARM_GITHUB_APP_PRIVATE_KEY, FUZZFARM_GITHUB_WEBHOOK_SECRET and FUZZFARM_GITHUB_TARGET");
  const childEnv = { ...env };
  for (const k of [...GITHUB_SECRET_VARS, "FUZZFARM_GITHUB_APP_ID"]) delete childEnv[k];
  const start = pullRequestChecks({
    client: { auth: { kind: "app", appId, privateKey }, baseUrl: env.FUZZFARM_GITHUB_API_URL || undefined },
    runner: githubRunner({ workDir: env.FUZZFARM_GITHUB_WORKDIR ?? join(dataDir, "github"), target, time: env.FUZZFARM_GITHUB_TIME ?? "5m", jobSeconds: env.FUZZFARM_GITHUB_JOB_SECONDS, cli: { main: CLI_MAIN, execArgv: ["--import", "tsx"], cwd: REPO_ROOT }, env: childEnv, log }),
    log,
  });
  log(`GitHub App ${appId}: webhook on /api/github/webhook, target ${target}`);
  return { webhookSecret, onCheckRequest: start };
}
