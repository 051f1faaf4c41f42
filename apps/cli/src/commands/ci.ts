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
// What earlier runs found comes from a state directory (ci/state.ts), not
// the database (CI gives every run a fresh one); the pull request's code runs
// only sandboxed with an allow-listed environment (ci/target-env.ts); the
// base gets its dependencies from its lockfile (ci/base-install.ts); every
// bucket the head has is written as a reproducer file (ci/reproducer-file.ts).
import { appendFileSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { secretPaths, type Config } from "@fuzzfarm/config";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { CheckRun, clientForRepository, countByClass, markdownSummary, toSarif, type PullRequestReport } from "@fuzzfarm/github";
import { parseDuration, resolveTarget } from "./targets";
import { parseOptions } from "./fuzz";
import { checkoutBase, commitOf, repoRootOf } from "../ci/git";
import { githubContext, pullRequestFromEvent, scrubGitHubSecrets, type GitHubContext } from "../ci/github-env";
import { installBase } from "../ci/base-install";
import { StateDir } from "../ci/state";
import { recordRun, runCandidates } from "../ci/state-sync";
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
  /**
   * code-change (a pull request: ends once its new buckets settle, or at --time) or batch (push / schedule: the whole
   * --time, base HEAD unless --base-ref; a stored bucket the head no longer has is marked fixed). Default code-change.
   */
  mode?: string;
  /** State directory carried between runs (default <repo>/.fuzzfarm-state). */
  state?: string;
  /** Where reproducer files are written, emptied first (default <state>/reproducers). */
  reproducers?: string;
}

/** Default state directory, under the repository root. */
export const DEFAULT_STATE_DIR = ".fuzzfarm-state";
/** Code-change mode: the campaign ends this long after its last new bucket (the replays confirm them). */
const STOP_SETTLE_SECONDS = 5;

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
  const rel = relative(root, target.path).split(sep).join("/");
  if (rel.startsWith("..")) throw new FuzzFarmError("FF_ERR_CONFIG", `target ${f.target} is outside the repository ${root}`);
  const mode = f.mode ?? "code-change";
  if (mode !== "code-change" && mode !== "batch") throw new FuzzFarmError("FF_ERR_CONFIG", `--mode ${mode}: code-change or batch`);
  const event = pullRequestFromEvent(env);
  const baseRef = resolveBaseRef(root, f.baseRef ?? (mode === "batch" ? "HEAD" : undefined), event.baseRef);
  const baseSha = commitOf(root, baseRef);
  const headSha = f.headSha ?? event.headSha ?? commitOf(root, "HEAD");
  const log = (l: string) => err.write(`${l}\n`);
  // What was set up is said once the campaign runs: a command that fails before says only its one error line.
  const setup: string[] = [];
  const note = (l: string) => setup.push(l);

  // What earlier runs found, and where this one's reproducers go (fresh each run: the workflow uploads them).
  const state = new StateDir(resolve(f.state ?? join(root, DEFAULT_STATE_DIR))).open();
  const reproducerDir = resolve(f.reproducers ?? join(state.dir, "reproducers"));
  rmSync(reproducerDir, { recursive: true, force: true });
  const stored = state.buckets(rel, log);
  note(`state ${relative(root, state.dir) || "."}: ${stored.length} known bucket(s) of ${rel}`);

  const gh = f.check ? githubOrWhyNot(env, f, log) : null;
  // The head's and the base's code run only sandboxed, with an allow-listed environment (never this one).
  const sandbox = await ciSandbox(config, note);
  const targetEnv = targetEnvironment(env, config.targetEnv);
  const hide = secretPaths(config, env);
  const runner = await campaignRunner(f, config, { sandbox, env: targetEnv }, log);
  ignoreDataDir(config.dataDir, root);
  // Read once; the targets (run by local workers and replays, children of this process) never see them.
  scrubGitHubSecrets(process.env);
  let report: PullRequestReport | null = null;
  let check: CheckRun | null = null;
  let base: Awaited<ReturnType<typeof checkoutBase>> | null = null;
  let baseNote: string | null = null;
  let run: ReturnType<typeof runCandidates> | null = null;
  let corpus: Buffer[] = [];
  try {
    check = gh ? await startCheck(gh, { headSha, name: f.checkName, minProgressIntervalMs: checkIntervalMs }, `Fuzzing \`${rel}\` for ${seconds}s`, log) : null;
    base = await checkoutBase(root, baseSha);
    const installed = await installBase({ headRoot: root, baseRoot: base.dir, env: targetEnv });
    if (installed.ok) note(`base dependencies: ${installed.how}`);
    else note(`base: ${(baseNote = installed.why)}; the base side gives no verdict`);
    try {
      const camp = await runner.run(
        {
          target,
          seconds,
          jobSeconds,
          options,
          root,
          seeds: target.engine === "input" ? state.corpus(rel) : [],
          ...(mode === "code-change" ? { stopAfterNew: { known: new Set(stored.map((b) => b.signature)), settleSeconds: STOP_SETTLE_SECONDS } } : {}),
        },
        {
          started: (id) => {
            for (const l of setup.splice(0)) log(l);
            log(`campaign ${id}: ${target.engine} engine on ${rel} at ${headSha.slice(0, 12)} for ${seconds}s${f.farm ? ` on ${f.farm}` : ""}; base ${baseRef} (${baseSha.slice(0, 12)})`);
          },
          progress: (line) => {
            log(line);
            check?.progress(`Fuzzing \`${rel}\`: ${line}`).catch((e: Error) => log(`check progress: ${e.message}`));
          },
          log,
        },
      );
      if (camp.executions === 0)
        throw new FuzzFarmError(
          "FF_ERR_CAMPAIGN_FAILED",
          `campaign ${camp.campaignId} ran 0 executions in ${Math.round(camp.seconds)}s: the time box (--time ${f.time}) ended before a worker ran the target (start-up takes seconds; give --time 30s or more)`,
        );
      corpus = camp.corpus ?? [];
      await check?.progress(`Campaign done (${camp.executions} executions, ${camp.buckets} bucket(s)); replaying on head and base`, true);

      // The known buckets of this target (state directory) and the campaign's new ones, replayed on both sides.
      run = runCandidates(stored, camp.candidates, rel, root, target.engine);
      log(`replaying ${run.candidates.length} bucket(s) ${f.replays}x on head and on base`);
      const baseDir = base.dir;
      const baseTarget = join(baseDir, rel);
      // a reproducer file for every bucket; on a farm, the farm's bucket when the campaign hit it
      const fileCommand = (id: string) => `npx fuzzfarm repro ${join(relative(root, reproducerDir), `${id}.json`).split(sep).join("/")}`;
      const reproduce = (id: string) => (f.farm && run!.campaignIds.has(id) ? runner.reproduceCommand(run!.campaignIds.get(id)!) : fileCommand(id));
      const buckets = await withProcessEnv(targetEnv, () =>
        replayAndClassify(run!.candidates, {
          head: { root, target: target.path },
          base: { root: baseDir, target: existsSync(baseTarget) ? baseTarget : null, ...(baseNote ? { unavailable: baseNote } : {}) },
          reportRoot: root,
          runs: f.replays,
          reproduceCommand: reproduce,
          log,
          isolation: { sandbox, hide, readable: [root] },
          allowedOptimizers: config.allowedOptimizers,
        }),
      );
      report = { target: rel, engine: target.engine, headSha, baseRef, baseSha, campaignId: camp.campaignId, seconds: camp.seconds, executions: camp.executions, buckets };
    } catch (e) {
      // the command's own error is what matters (thrown next); the check run left open is said in a line
      await check?.fail(`FuzzFarm failed: ${(e as Error).message}`).catch((f: Error) => log(`check run ${check?.id} not marked failed: ${f.message}`));
      throw e;
    }
  } finally {
    await runner.close();
    await base?.remove();
  }

  recordRun(report.buckets, run!, { state, root, commit: headSha, reproducerDir, goneIsFixed: mode === "batch" });
  const added = state.addCorpus(rel, corpus);
  log(`state: ${report.buckets.length} bucket(s) recorded, corpus +${added} input(s)${existsSync(reproducerDir) ? `; reproducers in ${relative(root, reproducerDir) || reproducerDir}` : ""}`);
  let md = markdownSummary(report);
  if (baseNote) md += `\n> The base (${baseRef}) gave no verdict: ${baseNote}. A bucket the head has counts as new unless an earlier run saw it.\n`;
  if (report.buckets.some((b) => b.head.hits > 0) && !f.farm)
    md += `\nEach reproducer is a file (the workflow's \`fuzzfarm-reproducers\` artifact); from the repository's root: \`npx fuzzfarm repro FILE.json\` (no database needed).\n`;
  if (f.summary) writeFileSync(f.summary, md);
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, md);
  if (f.sarif) writeFileSync(f.sarif, `${JSON.stringify(toSarif(report), null, 2)}\n`);
  if (check) {
    await check.complete(report).then(
      () => log(`check run ${check!.id} completed`),
      (e: Error) => log(`no check run completed: ${e.message.split("\n")[0]}`),
    );
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

/** The GitHub context for --check, or null with one line saying why no check run will be posted (the fuzzing goes on). */
function githubOrWhyNot(env: NodeJS.ProcessEnv, f: CiFlags, log: (l: string) => void): GitHubContext | null {
  try {
    return githubContext(env, f);
  } catch (e) {
    log(`no check run posted: ${(e as Error).message}`);
    return null;
  }
}

/** Create and start the check run; a refused token (a fork's pull request) is one line, and the run goes on without it. */
async function startCheck(gh: GitHubContext, o: { headSha: string; name?: string; minProgressIntervalMs: number }, title: string, log: (l: string) => void): Promise<CheckRun | null> {
  try {
    const check = new CheckRun({ github: await clientForRepository(gh.client, gh.owner, gh.repo), owner: gh.owner, repo: gh.repo, headSha: o.headSha, name: o.name, minProgressIntervalMs: o.minProgressIntervalMs });
    await check.start(title);
    log(`check run ${check.id} in_progress`);
    return check;
  } catch (e) {
    log(`no check run posted: GitHub refused it (${(e as Error).message.split("\n")[0]}); SARIF, summary and reproducers are still written`);
    return null;
  }
}

/** The data directory (job key, service data) is FuzzFarm's, not the project's: a .gitignore inside keeps it out of `git status`. */
function ignoreDataDir(dataDir: string, root: string): void {
  if (relative(root, dataDir).startsWith("..") || !existsSync(dataDir) || existsSync(join(dataDir, ".gitignore"))) return;
  writeFileSync(join(dataDir, ".gitignore"), "# FuzzFarm's data directory (job key, local services)\n*\n");
}
