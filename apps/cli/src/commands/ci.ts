// `fuzzfarm ci --target PATH`: a pull request's fuzzing verdict. Runs a
// time-boxed campaign on the head, either locally (in-process coordinator +
// local workers, as `fuzz` does) or with --farm URL on a running farm
// through its dashboard's CI API; then, in this process, replays every
// bucket the farm knows for this target (the campaign's and the base
// branch's known ones) on the head and on the base (checked out at
// --base-ref with `git worktree`), and classifies each: new (head only),
// pre-existing (both), fixed (base only). Exit 1 only for new buckets.
// Writes SARIF 2.1.0 (--sarif), a Markdown summary (--summary, and
// $GITHUB_STEP_SUMMARY when set) and, with --check, a GitHub check run
// (in_progress -> progress -> completed with annotations). Everything after
// the campaign is one code path for both modes (ci/campaign.ts).
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { secretPaths, type Config } from "@fuzzfarm/config";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { CheckRun, clientForRepository, countByClass, markdownSummary, toSarif, type PullRequestReport } from "@fuzzfarm/github";
import { parseDuration, resolveTarget } from "./targets";
import { parseOptions } from "./fuzz";
import { checkoutBase, commitOf, repoRootOf } from "../ci/git";
import { githubContext, pullRequestFromEvent, scrubGitHubSecrets } from "../ci/github-env";
import { replayAndClassify } from "../ci/replay";
import type { CiCampaignRunner } from "../ci/campaign";
import { ciSandbox } from "../ci/sandbox";
import { targetEnvironment, withProcessEnv } from "../ci/target-env";
import type { LocalTargetPolicy } from "../ci/local-campaign";

export interface CiFlags {
  target: string;
  time: string;
  baseRef?: string;
  engine?: string;
  workers?: number;
  /** Work per job (default: the config's, at most a quarter of the campaign, at least 1 s). */
  jobSeconds?: string;
  option?: string[];
  /** Replays of each bucket on each side. */
  replays: number;
  sarif?: string;
  summary?: string;
  json?: boolean;
  /** Report through a GitHub check run. */
  check?: boolean;
  checkName?: string;
  checkInterval: string;
  repository?: string;
  githubApiUrl?: string;
  headSha?: string;
  /** Run the campaign on this farm (its dashboard URL) instead of locally. */
  farm?: string;
  /** The farm's CI token (default: config ciToken, env FUZZFARM_CI_TOKEN). */
  token?: string;
}

function resolveBaseRef(root: string, flag: string | undefined, fromEvent: string | undefined): string {
  if (flag) return flag;
  const branch = fromEvent ?? "main";
  for (const ref of [`origin/${branch}`, branch]) {
    try {
      commitOf(root, ref);
      return ref;
    } catch {
      // try the next spelling
    }
  }
  throw new FuzzFarmError("FF_ERR_CONFIG", `base branch ${branch} not found (fetch it, e.g. actions/checkout with fetch-depth: 0, or pass --base-ref)`);
}

/** Where the campaign runs: on --farm through its API, else on this machine (its modules load only when used). */
async function campaignRunner(f: CiFlags, config: Config, policy: LocalTargetPolicy, log: (l: string) => void): Promise<CiCampaignRunner> {
  if (f.farm) {
    const { farmCampaignRunner, farmUrl } = await import("../ci/farm-campaign");
    const url = farmUrl(f.farm);
    const token = f.token ?? config.ciToken;
    if (!token) throw new FuzzFarmError("FF_ERR_CONFIG", "--farm needs the farm's CI token: --token or FUZZFARM_CI_TOKEN");
    return farmCampaignRunner({ url, token });
  }
  const { localCampaignRunner } = await import("../ci/local-campaign");
  return localCampaignRunner(config, f.workers ?? config.workers, policy, log);
}

export async function ciCommand(f: CiFlags, config: Config, env: NodeJS.ProcessEnv = process.env, out = process.stdout, err = process.stderr): Promise<number> {
  const target = resolveTarget(f.target, f.engine, undefined);
  const seconds = parseDuration(f.time, { flag: "--time" });
  const jobSeconds = f.jobSeconds ? parseDuration(f.jobSeconds, { flag: "--job-seconds" }) : Math.min(config.jobSeconds, Math.max(1, seconds / 4));
  const checkIntervalMs = parseDuration(f.checkInterval, { flag: "--check-interval", min: 0 }) * 1000;
  const options = parseOptions(f.option);
  const root = repoRootOf(dirname(target.path));
  const rel = relative(root, target.path);
  if (rel.startsWith("..")) throw new FuzzFarmError("FF_ERR_CONFIG", `target ${f.target} is outside the repository ${root}`);
  const event = pullRequestFromEvent(env);
  const baseRef = resolveBaseRef(root, f.baseRef, event.baseRef);
  const baseSha = commitOf(root, baseRef);
  const headSha = f.headSha ?? event.headSha ?? commitOf(root, "HEAD");
  const log = (l: string) => err.write(`${l}\n`);

  const gh = f.check ? githubContext(env, f) : null;
  // The head's and the base's code run only sandboxed, with an allow-listed environment (never this one).
  const sandbox = await ciSandbox(config, log);
  const targetEnv = targetEnvironment(env, config.targetEnv);
  const hide = secretPaths(config, env);
  const runner = await campaignRunner(f, config, { sandbox, env: targetEnv }, log);
  // Read once; the targets (run by local workers and replays, children of this process) never see them.
  scrubGitHubSecrets(process.env);
  let report: PullRequestReport | null = null;
  let check: CheckRun | null = null;
  let base: Awaited<ReturnType<typeof checkoutBase>> | null = null;
  try {
    check = gh
      ? new CheckRun({ github: await clientForRepository(gh.client, gh.owner, gh.repo), owner: gh.owner, repo: gh.repo, headSha, name: f.checkName, minProgressIntervalMs: checkIntervalMs })
      : null;
    base = await checkoutBase(root, baseSha);
    try {
      if (check) {
        await check.start(`Fuzzing \`${rel}\` for ${seconds}s`);
        log(`check run ${check.id} in_progress`);
      }
      const camp = await runner.run(
        { target, seconds, jobSeconds, options },
        {
          started: (id) => log(`campaign ${id}: ${target.engine} engine on ${rel} at ${headSha.slice(0, 12)} for ${seconds}s${f.farm ? ` on ${f.farm}` : ""}; base ${baseRef} (${baseSha.slice(0, 12)})`),
          progress: (line) => {
            log(line);
            check?.progress(`Fuzzing \`${rel}\`: ${line}`).catch((e: Error) => log(`check progress: ${e.message}`));
          },
          log,
        },
      );
      await check?.progress(`Campaign done (${camp.executions} executions, ${camp.buckets} bucket(s)); replaying on head and base`, true);

      // The farm's buckets of this target: this campaign's and the ones known before (the base's).
      log(`replaying ${camp.candidates.length} bucket(s) ${f.replays}x on head and on base`);
      const baseDir = base.dir;
      const baseTarget = join(baseDir, rel);
      const buckets = await withProcessEnv(targetEnv, () => replayAndClassify(camp.candidates, {
        head: { root, target: target.path },
        base: { root: baseDir, target: existsSync(baseTarget) ? baseTarget : null },
        reportRoot: root,
        runs: f.replays,
        reproduceCommand: (id) => runner.reproduceCommand(id),
        log,
        isolation: { sandbox, hide },
      }));
      report = {
        target: rel.split(sep).join("/"),
        engine: target.engine,
        headSha,
        baseRef,
        baseSha,
        campaignId: camp.campaignId,
        seconds: camp.seconds,
        executions: camp.executions,
        buckets,
      };
    } catch (e) {
      // the command's own error is what matters (thrown next); the check run left open is said in a line
      await check?.fail(`FuzzFarm failed: ${(e as Error).message}`).catch((f: Error) => log(`check run ${check?.id} not marked failed: ${f.message}`));
      throw e;
    }
  } finally {
    await runner.close();
    await base?.remove();
  }

  const md = markdownSummary(report);
  if (f.summary) writeFileSync(f.summary, md);
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, md);
  if (f.sarif) writeFileSync(f.sarif, `${JSON.stringify(toSarif(report), null, 2)}\n`);
  if (check) {
    await check.complete(report);
    log(`check run ${check.id} completed`);
  }
  const c = countByClass(report);
  if (f.json) out.write(`${JSON.stringify(report)}\n`);
  else {
    for (const b of report.buckets)
      out.write(`${b.class.toUpperCase().padEnd(12)} ${b.id}  ${b.kind.padEnd(9)} ${b.title}${b.location ? `  at ${b.location.path}:${b.location.line}` : ""}  (head ${b.head.hits}/${b.head.runs}, base ${b.base.hits}/${b.base.runs}); reproduce: ${b.reproduce}\n`);
    out.write(`${c.new} new, ${c["pre-existing"]} pre-existing, ${c.fixed} fixed, ${c.unreproduced} unreproduced\n`);
  }
  return c.new > 0 ? 1 : 0;
}
