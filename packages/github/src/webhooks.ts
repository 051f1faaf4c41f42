// GitHub App webhooks, coordinator side: signature check and the events that
// start a pull-request campaign. `X-Hub-Signature-256` is
// "sha256=" + HMAC-SHA256(secret, raw body); it is compared in constant time
// by @octokit/webhooks-methods (timingSafeEqual). GitHub signs no timestamp,
// so replays are caught by the delivery id (X-GitHub-Delivery), which the
// receiving route remembers.
import { verify } from "@octokit/webhooks-methods";

/** True when `signature` is the sha256 HMAC of exactly these bytes under `secret`. Never throws. */
export async function verifyWebhookSignature(secret: string, rawBody: string, signature: string | undefined): Promise<boolean> {
  if (!secret || !signature || !/^sha256=[0-9a-f]{64}$/.test(signature)) return false;
  try {
    return await verify(secret, rawBody, signature);
  } catch {
    return false;
  }
}

/** What a pull-request campaign needs to know, taken from a webhook event. */
export interface CheckRequest {
  /** Event and action that asked, e.g. `pull_request.synchronize`. */
  reason: string;
  owner: string;
  repo: string;
  /** Clone URL of the repository (https). */
  cloneUrl: string;
  headSha: string;
  headRef: string;
  /** Base branch of the pull request; the repository's default branch when the event names no pull request. */
  baseRef: string;
  /** Pull request number, when known. */
  pullNumber?: number;
  /** App installation that received the event. */
  installationId?: number;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * The campaign request of an event, or null when the event starts nothing:
 * `pull_request` opened / synchronize / reopened, `check_suite` rerequested,
 * `check_run` rerequested.
 */
export function checkRequestOf(event: string, payload: unknown): CheckRequest | null {
  const p = obj(payload);
  const action = str(p.action) ?? "";
  const repository = obj(p.repository);
  const owner = str(obj(repository.owner).login);
  const repo = str(repository.name);
  const cloneUrl = str(repository.clone_url) ?? "";
  const installationId = num(obj(p.installation).id);
  const defaultBranch = str(repository.default_branch) ?? "main";
  if (!owner || !repo) return null;
  const common = { owner, repo, cloneUrl, installationId, reason: `${event}.${action}` };
  if (event === "pull_request" && ["opened", "synchronize", "reopened"].includes(action)) {
    const pr = obj(p.pull_request);
    const head = obj(pr.head);
    const headSha = str(head.sha);
    if (!headSha) return null;
    return { ...common, headSha, headRef: str(head.ref) ?? "", baseRef: str(obj(pr.base).ref) ?? defaultBranch, pullNumber: num(pr.number) };
  }
  if ((event === "check_suite" || event === "check_run") && action === "rerequested") {
    const run = obj(event === "check_suite" ? p.check_suite : p.check_run);
    const suite = event === "check_suite" ? run : obj(run.check_suite);
    const headSha = str(run.head_sha) ?? str(suite.head_sha);
    if (!headSha) return null;
    const prs = Array.isArray(run.pull_requests) ? run.pull_requests.map(obj) : [];
    const pr = prs[0];
    return { ...common, headSha, headRef: str(suite.head_branch) ?? "", baseRef: str(obj(pr?.base).ref) ?? defaultBranch, pullNumber: num(pr?.number) };
  }
  return null;
}
