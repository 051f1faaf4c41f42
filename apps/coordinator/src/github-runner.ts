// GitHub App mode, coordinator side: runs a pull request's campaign for a
// webhook. The repository is fetched into a bare clone under `workDir` with
// the installation token (sent as an HTTP header, never written to disk or
// given to a worker), the head is checked out in a stable worktree (so the
// farm's buckets of the target are found again on the next push), and
// `fuzzfarm ci --json` runs there: campaign on the farm's services, replays
// on head and base, the report on stdout. Runs of one repository queue
// behind each other (they share the worktree).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { CheckRequest, PullRequestReport, PullRequestRun } from "@fuzzfarm/github";

export interface GitHubRunnerOptions {
  /** Where clones and worktrees live (one bare clone + one worktree per repository). */
  workDir: string;
  /** The fuzz target, relative to the repository root. */
  target: string;
  /** Campaign length, e.g. "5m". */
  time: string;
  /** Work per job, e.g. "10s"; default: `fuzzfarm ci`'s. */
  jobSeconds?: string;
  /** The CLI entry point (apps/cli/src/main.ts), the node arguments to run it with and the directory they resolve from. */
  cli: { main: string; execArgv: string[]; cwd: string };
  /** Environment of the `fuzzfarm ci` process, as built by ciChildEnv (an allow-list; secrets only as NAME_FILE paths). */
  env: NodeJS.ProcessEnv;
  /** Local workers of each run; default 1. */
  workers?: number;
  log?: (line: string) => void;
}

function git(args: string[], token?: string): string {
  const auth = token ? ["-c", `http.extraHeader=AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`] : [];
  const r = spawnSync("git", [...auth, ...args], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.filter((a) => !a.includes("AUTHORIZATION")).join(" ")}: ${(r.stderr || r.stdout).trim().split("\n")[0]}`);
  return r.stdout.trim();
}

function checkoutHead(o: GitHubRunnerOptions, req: CheckRequest, token: string): string {
  const repoDir = join(o.workDir, req.owner, `${req.repo}.git`);
  const wt = join(o.workDir, req.owner, req.repo);
  if (!existsSync(repoDir)) {
    mkdirSync(join(o.workDir, req.owner), { recursive: true });
    git(["clone", "--bare", "--quiet", req.cloneUrl, repoDir], token);
  }
  git(["-C", repoDir, "fetch", "--quiet", "--force", "origin", "+refs/heads/*:refs/heads/*"], token);
  if (spawnSync("git", ["-C", repoDir, "cat-file", "-e", `${req.headSha}^{commit}`]).status !== 0) git(["-C", repoDir, "fetch", "--quiet", "origin", req.headSha], token);
  spawnSync("git", ["-C", repoDir, "worktree", "remove", "--force", wt]);
  spawnSync("git", ["-C", repoDir, "worktree", "prune"]);
  git(["-C", repoDir, "worktree", "add", "--detach", "--quiet", wt, req.headSha]);
  return wt;
}

/** The runner for `pullRequestChecks`. */
export function githubRunner(o: GitHubRunnerOptions): (req: CheckRequest, progress: (text: string) => void, token: string) => Promise<PullRequestRun> {
  const log = o.log ?? (() => {});
  const queues = new Map<string, Promise<unknown>>();
  return (req, progress, token) => {
    const key = `${req.owner}/${req.repo}`;
    const previous = queues.get(key) ?? Promise.resolve();
    // the previous run's failure was reported to its own caller; this run only waits for it to end
    const started = previous.catch(() => {}).then(
      () =>
        new Promise<PullRequestRun>((resolveStart, rejectStart) => {
          const wt = checkoutHead(o, req, token);
          const args = [...o.cli.execArgv, o.cli.main, "ci", "--target", join(wt, o.target), "--time", o.time, "--base-ref", `refs/heads/${req.baseRef}`, "--head-sha", req.headSha, "--workers", String(o.workers ?? 1), ...(o.jobSeconds ? ["--job-seconds", o.jobSeconds] : []), "--json"];
          const child = spawn(process.execPath, args, { cwd: o.cli.cwd, env: o.env, stdio: ["ignore", "pipe", "pipe"] });
          let stdout = "";
          let lastErr = "";
          let campaignId: string | null = null;
          let resolveDone!: (r: PullRequestReport) => void;
          let rejectDone!: (e: Error) => void;
          const done = new Promise<PullRequestReport>((a, b) => ((resolveDone = a), (rejectDone = b)));
          done.catch(() => {}); // observed by the caller once the campaign started; never unhandled before
          const tail: string[] = [];
          child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
          child.stderr.setEncoding("utf8").on("data", (d: string) => {
            for (const line of d.split("\n").filter(Boolean)) {
              lastErr = line;
              log(`${key}: ${line}`);
              tail.push(line);
              if (tail.length > 30) tail.shift();
              const m = /^campaign (\S+): /.exec(line);
              if (m && !campaignId) {
                campaignId = m[1]!;
                log(`${key}@${req.headSha.slice(0, 12)}: campaign ${campaignId}`);
                resolveStart({ campaignId, done });
              }
              if (line.startsWith("[")) progress(`Fuzzing ${o.target}: ${line}`);
            }
          });
          child.on("exit", (code) => {
            if (!campaignId) rejectStart(new Error(`fuzzfarm ci exited (${code}) before its campaign started: ${tail.join(" | ")}`));
            if (code === 0 || code === 1) {
              try {
                resolveDone(JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as PullRequestReport);
              } catch {
                rejectDone(new Error(`fuzzfarm ci printed no report: ${tail.join(" | ")}`));
              }
            } else rejectDone(new Error(`fuzzfarm ci exited with ${code}: ${lastErr}`));
          });
        }),
    );
    queues.set(
      key,
      // the queue entry only orders runs; its failure reaches the caller through `started` / `done`
      started.then((r) => r.done).catch(() => {}),
    );
    return started;
  };
}
