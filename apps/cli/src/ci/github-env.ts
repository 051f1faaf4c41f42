// How `fuzzfarm ci` reaches GitHub, read once from the environment (the CLI
// is an app: it parses env, packages take options):
//   GITHUB_TOKEN                          a token (Actions' own, checks: write)
//   FUZZFARM_GITHUB_APP_ID +              a GitHub App; the private key inline or
//   FUZZFARM_GITHUB_APP_PRIVATE_KEY[_FILE]   from a file; FUZZFARM_GITHUB_INSTALLATION_ID optional
//   GITHUB_API_URL                        API root (GitHub Enterprise Server: https://HOST/api/v3)
//   GITHUB_REPOSITORY                     owner/repo
//   GITHUB_EVENT_PATH                     the event payload: a pull request's head sha and base branch
//   GITHUB_BASE_REF                       base branch of a pull_request event
import { readFileSync } from "node:fs";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import type { GitHubClientOptions } from "@fuzzfarm/github";

export interface GitHubContext {
  client: GitHubClientOptions;
  owner: string;
  repo: string;
}

/** The pull request's head sha and base branch from the Actions event payload, when there is one. */
export function pullRequestFromEvent(env: NodeJS.ProcessEnv): { headSha?: string; baseRef?: string } {
  if (!env.GITHUB_EVENT_PATH) return { baseRef: env.GITHUB_BASE_REF || undefined };
  try {
    const ev = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) as { pull_request?: { head?: { sha?: string }; base?: { ref?: string } } };
    return { headSha: ev.pull_request?.head?.sha, baseRef: ev.pull_request?.base?.ref ?? (env.GITHUB_BASE_REF || undefined) };
  } catch {
    return { baseRef: env.GITHUB_BASE_REF || undefined };
  }
}

export function githubContext(env: NodeJS.ProcessEnv, flags: { repository?: string; githubApiUrl?: string }): GitHubContext {
  const repository = flags.repository ?? env.GITHUB_REPOSITORY;
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(repository ?? "");
  if (!m) throw new FuzzFarmError("FF_ERR_CONFIG", "--check needs the repository: --repository OWNER/REPO or GITHUB_REPOSITORY");
  const baseUrl = flags.githubApiUrl ?? (env.GITHUB_API_URL || undefined);
  const appId = env.FUZZFARM_GITHUB_APP_ID;
  if (appId) {
    const privateKey = env.FUZZFARM_GITHUB_APP_PRIVATE_KEY ?? (env.FUZZFARM_GITHUB_APP_PRIVATE_KEY_FILE ? readFileSync(env.FUZZFARM_GITHUB_APP_PRIVATE_KEY_FILE, "utf8") : undefined);
    if (!privateKey) throw new FuzzFarmError("FF_ERR_CONFIG", "FUZZFARM_GITHUB_APP_ID is set but neither FUZZFARM_GITHUB_APP_PRIVATE_KEY nor FUZZFARM_GITHUB_APP_PRIVATE_KEY_FILE");
    const inst = env.FUZZFARM_GITHUB_INSTALLATION_ID ? Number(env.FUZZFARM_GITHUB_INSTALLATION_ID) : undefined;
    return { owner: m[1]!, repo: m[2]!, client: { baseUrl, auth: { kind: "app", appId, privateKey, ...(inst ? { installationId: inst } : {}) } } };
  }
  if (!env.GITHUB_TOKEN) throw new FuzzFarmError("FF_ERR_CONFIG", "--check needs GITHUB_TOKEN, or FUZZFARM_GITHUB_APP_ID with a private key");
  return { owner: m[1]!, repo: m[2]!, client: { baseUrl, auth: { kind: "token", token: env.GITHUB_TOKEN } } };
}

/** Credentials `fuzzfarm ci` may read (GitHub's, and the farm's CI token); removed from the environment before any target runs. */
export const GITHUB_SECRET_VARS = ["GITHUB_TOKEN", "GH_TOKEN", "FUZZFARM_GITHUB_APP_PRIVATE_KEY", "FUZZFARM_GITHUB_APP_PRIVATE_KEY_FILE", "FUZZFARM_GITHUB_WEBHOOK_SECRET", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "FUZZFARM_CI_TOKEN", "FUZZFARM_CI_TOKEN_FILE"];

export function scrubGitHubSecrets(env: NodeJS.ProcessEnv): void {
  for (const k of GITHUB_SECRET_VARS) delete env[k];
}
