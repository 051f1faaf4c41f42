// Octokit clients for the two ways FuzzFarm talks to GitHub:
//   - a token (GITHUB_TOKEN in Actions, or any token with checks:write);
//   - a GitHub App: app id + private key sign a JWT, exchanged by
//     @octokit/auth-app for installation tokens (cached, renewed on expiry).
// The base URL is configurable for GitHub Enterprise Server
// (https://HOST/api/v3). Only the coordinator side and the CI command hold these.
import { Octokit } from "@octokit/rest";
import { createAppAuth } from "@octokit/auth-app";

export type GitHubAuth =
  | { kind: "token"; token: string }
  | {
      kind: "app";
      appId: number | string;
      /** PEM private key of the App (PKCS#1 or PKCS#8). */
      privateKey: string;
      /** Installation to act as; when absent, looked up from the repository. */
      installationId?: number;
    };

export interface GitHubClientOptions {
  auth: GitHubAuth;
  /** REST API root. Default https://api.github.com; GitHub Enterprise Server: https://HOST/api/v3. */
  baseUrl?: string;
  /** User-Agent product. Default "fuzzfarm". */
  userAgent?: string;
  /** Fetch implementation (tests may route through their own agent). Default the global fetch. */
  fetch?: typeof fetch;
}

export type GitHub = Octokit;

function base(opts: GitHubClientOptions) {
  return { baseUrl: opts.baseUrl ?? "https://api.github.com", userAgent: opts.userAgent ?? "fuzzfarm", request: opts.fetch ? { fetch: opts.fetch } : undefined };
}

/** An Octokit acting with a token, or as an App installation (installationId required then). */
export function createGitHubClient(opts: GitHubClientOptions): GitHub {
  const a = opts.auth;
  if (a.kind === "token") return new Octokit({ ...base(opts), auth: a.token });
  if (a.installationId === undefined) throw new Error("GitHub App client needs an installation id (use clientForRepository)");
  return new Octokit({ ...base(opts), authStrategy: createAppAuth, auth: { appId: a.appId, privateKey: a.privateKey, installationId: a.installationId } });
}

/**
 * A client for one repository: a token client as is; an App client for the
 * installation given, or the one installed on `owner/repo` (GET /repos/{owner}/{repo}/installation, as the App).
 */
export async function clientForRepository(opts: GitHubClientOptions, owner: string, repo: string): Promise<GitHub> {
  const a = opts.auth;
  if (a.kind === "token" || a.installationId !== undefined) return createGitHubClient(opts);
  const asApp = new Octokit({ ...base(opts), authStrategy: createAppAuth, auth: { appId: a.appId, privateKey: a.privateKey } });
  const { data } = await asApp.rest.apps.getRepoInstallation({ owner, repo });
  return createGitHubClient({ ...opts, auth: { ...a, installationId: data.id } });
}
