// `fuzzfarm ci --target PATH`: a pull request's fuzzing verdict. Runs a
// time-boxed campaign on the head (in-process coordinator + local workers,
// as `fuzz` does), then replays every bucket the farm knows for this target
// (the campaign's and the base branch's known ones) on the head and on the
// base (checked out at --base-ref with `git worktree`), and classifies each:
// new (head only), pre-existing (both), fixed (base only). Exit 1 only for
// new buckets. Writes SARIF 2.1.0 (--sarif), a Markdown summary (--summary,
// and $GITHUB_STEP_SUMMARY when set) and, with --check, a GitHub check run
// (in_progress -> progress -> completed with annotations).
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { startCoordinator } from "@fuzzfarm/coordinator";
import { ensureServices } from "@fuzzfarm/services";
import type { Config } from "@fuzzfarm/config";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { campaignOutcome } from "@fuzzfarm/db";
import { CheckRun, clientForRepository, countByClass, markdownSummary, toSarif, type PullRequestReport } from "@fuzzfarm/github";
import { openFarm, REPO_ROOT } from "../context";
import { startLocalWorkers, waitForLocalWorker } from "../local-workers";
import { campaignSummary, progressLine } from "./summary";
import { parseDuration, resolveTarget } from "./targets";
import { parseOptions } from "./fuzz";
import { checkoutBase, commitOf, repoRootOf } from "../ci/git";
import { githubContext, pullRequestFromEvent, scrubGitHubSecrets } from "../ci/github-env";
import { replayAndClassify, type CandidateBucket } from "../ci/replay";

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
}

/** At most this many known buckets of the target are replayed (most recently seen first). */
const MAX_CANDIDATES = 100;

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
  // Read once; the targets (run by local workers and replays, children of this process) never see them.
  scrubGitHubSecrets(process.env);
  const check = gh
    ? new CheckRun({ github: await clientForRepository(gh.client, gh.owner, gh.repo), owner: gh.owner, repo: gh.repo, headSha, name: f.checkName, minProgressIntervalMs: checkIntervalMs })
    : null;

  // A CI job starts from empty services (Actions service containers): create and migrate the database.
  await ensureServices({ redisUrl: config.redisUrl, databaseUrl: config.databaseUrl, dataDir: config.dataDir, path: process.env.PATH ?? "", repoRoot: REPO_ROOT, start: false, log });
  const farm = await openFarm(config);
  const base = await checkoutBase(root, baseSha);
  const coordinator = await startCoordinator({ db: farm.db, queues: farm.queues, redisUrl: config.redisUrl, rootDir: REPO_ROOT, only: [], log: (l) => log(`coordinator: ${l}`) });
  const workers = startLocalWorkers(config, f.workers ?? config.workers, (l) => log(`worker: ${l}`));
  let stopped: Promise<unknown> | null = null;
  const stopFarmSide = () => (stopped ??= Promise.all([coordinator.stop(), workers.stop()]));
  let report: PullRequestReport | null = null;
  try {
    if (check) {
      await check.start(`Fuzzing \`${rel}\` for ${seconds}s`);
      log(`check run ${check.id} in_progress`);
    }
    // The time box is fuzzing time: start it once a local worker is up (a worker boots in seconds on a busy machine).
    await waitForLocalWorker(workers, farm.queues.connection, config.queuePrefix);
    const camp = await coordinator.createCampaign({
      target: { name: target.name, path: target.path, version: target.version },
      engine: target.engine,
      options,
      seconds,
      jobSeconds,
    });
    log(`campaign ${camp.id}: ${target.engine} engine on ${rel} at ${headSha.slice(0, 12)} for ${seconds}s; base ${baseRef} (${baseSha.slice(0, 12)})`);
    const progress = setInterval(async () => {
      const s = await campaignSummary(farm.db, camp.id).catch(() => null);
      if (!s) return;
      log(progressLine(s));
      await check?.progress(`Fuzzing \`${rel}\`: ${progressLine(s)}`).catch((e: Error) => log(`check progress: ${e.message}`));
    }, 2000);
    try {
      if ((await coordinator.waitForCampaign(camp.id)) === "failed")
        throw new FuzzFarmError("FF_ERR_CAMPAIGN_FAILED", `campaign ${camp.id} failed: ${(await campaignOutcome(farm.db, camp.id)).reason}`);
    } finally {
      clearInterval(progress);
    }
    const s = await campaignSummary(farm.db, camp.id);
    log(progressLine(s));
    // Replays run here, in this process: free the cores first (queued maintenance jobs stay for the farm's workers).
    await stopFarmSide();
    await check?.progress(`Campaign done (${s.executions} executions, ${s.buckets.length} bucket(s)); replaying on head and base`, true);

    // The farm's buckets of this target: this campaign's and the ones known before (the base's).
    const known = await farm.db.prisma.crashBucket.findMany({
      where: { target: { path: target.path }, mergedIntoId: null },
      orderBy: { lastSeen: "desc" },
      take: MAX_CANDIDATES,
      include: { reports: { orderBy: { createdAt: "asc" }, take: 1 } },
    });
    const candidates: CandidateBucket[] = known.flatMap((b) => (b.reports[0] ? [{ id: b.id, kind: b.kind, title: b.title, report: b.reports[0] }] : []));
    log(`replaying ${candidates.length} bucket(s) ${f.replays}x on head and on base`);
    const baseTarget = join(base.dir, rel);
    const buckets = await replayAndClassify(candidates, {
      head: { root, target: target.path },
      base: { root: base.dir, target: existsSync(baseTarget) ? baseTarget : null },
      reportRoot: root,
      runs: f.replays,
      reproduceCommand: (id) => `fuzzfarm repro ${id}`,
      log,
    });
    report = {
      target: rel.split(sep).join("/"),
      engine: target.engine,
      headSha,
      baseRef,
      baseSha,
      campaignId: camp.id,
      seconds: s.seconds,
      executions: s.executions,
      buckets,
    };
  } catch (e) {
    await check?.fail(`FuzzFarm failed: ${(e as Error).message}`).catch(() => {});
    throw e;
  } finally {
    await stopFarmSide();
    await base.remove();
    await farm.close();
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
