// GitHub App mode: turns a CheckRequest (from the webhook) into a check run
// that follows a campaign. The campaign itself is the caller's: `runner`
// starts it on the coordinator side (checkout at the head sha, campaign,
// replays) and reports progress; this module only talks to GitHub.
import { clientForRepository, type GitHubClientOptions } from "./client";
import { CheckRun } from "./checks";
import type { PullRequestReport } from "./report";
import type { CheckRequest } from "./webhooks";

export interface PullRequestRun {
  /** The campaign's id, known as soon as it is created. */
  campaignId: string;
  /** The finished report. A rejection completes the check as neutral with the reason. */
  done: Promise<PullRequestReport>;
}

export interface PullRequestChecksOptions {
  /** How to reach GitHub (an App: installation tokens per repository). */
  client: GitHubClientOptions;
  /**
   * Starts the campaign; `progress` updates the check run (throttled); `token` reads the repository
   * (an installation token with contents: read, for fetching the head; never give it to workers).
   */
  runner: (req: CheckRequest, progress: (text: string) => void, token: string) => Promise<PullRequestRun>;
  /** Check name. Default "FuzzFarm". */
  checkName?: string;
  /** Dashboard URL of a campaign, for the check's details link. Default none. */
  detailsUrl?: (campaignId: string) => string;
  /** Least time between progress updates, ms. Default 10 000. */
  minProgressIntervalMs?: number;
  log?: (line: string) => void;
}

export interface StartedCheck {
  campaignId: string;
  checkRunId: number;
  /** Resolves once the check run is completed (never rejects). */
  finished: Promise<void>;
}

/** Create the check run in_progress, start the campaign, and complete the check when its report is ready. */
export function pullRequestChecks(opts: PullRequestChecksOptions): (req: CheckRequest) => Promise<StartedCheck> {
  const log = opts.log ?? (() => {});
  return async (req) => {
    const auth = opts.client.auth.kind === "app" && req.installationId !== undefined ? { ...opts.client.auth, installationId: req.installationId } : opts.client.auth;
    const github = await clientForRepository({ ...opts.client, auth }, req.owner, req.repo);
    const check = new CheckRun({ github, owner: req.owner, repo: req.repo, headSha: req.headSha, name: opts.checkName, minProgressIntervalMs: opts.minProgressIntervalMs });
    const checkRunId = await check.start(`Campaign requested by ${req.reason} on ${req.headRef || req.headSha}`);
    let run: PullRequestRun;
    try {
      const { token } = (await github.auth({ type: "installation" })) as { token: string };
      run = await opts.runner(req, (text) => void check.progress(text).catch((e) => log(`check progress: ${(e as Error).message}`)), token);
    } catch (e) {
      log(`${req.owner}/${req.repo}@${req.headSha.slice(0, 12)}: the campaign did not start: ${(e as Error).message}`);
      await check.fail(`The campaign could not start: ${(e as Error).message}`).catch(() => {});
      throw e;
    }
    const finished = run.done.then(
      (report) => check.complete(report),
      (e: Error) => check.fail(`The campaign failed: ${e.message}`),
    ).catch((e: Error) => log(`check ${checkRunId}: ${e.message}`));
    return { campaignId: run.campaignId, checkRunId, finished };
  };
}
