// `fuzzfarm fuzz <target>`: create a campaign, supervise it with a private
// coordinator, run N local workers (remote workers may join), show progress,
// and exit 0 (no crash), 1 (new buckets) or 2 (usage / infrastructure error).
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { startCoordinator, validateCampaignConfig, type ResultApplied } from "@fuzzfarm/coordinator";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import type { Config } from "@fuzzfarm/config";
import { campaignOutcome, countFinishedJobs, countOpenJobs, type Db } from "@fuzzfarm/db";
import { openFarm, PROJECT_ROOT } from "../context";
import { startLocalWorkers, waitForLocalWorker } from "../local-workers";
import { cliLogger } from "../log";
import { silentLogger, terminalText } from "@fuzzfarm/logging";
import { campaignSummary, progressLine } from "./summary";
import { MAX_CAMPAIGN_SECONDS, parseDuration, resolveTarget } from "./targets";

export interface FuzzFlags {
  engine?: string;
  time: string;
  workers?: number;
  json?: boolean;
  jobSeconds?: string;
  runsPerJob?: number;
  option?: string[];
  targetVersion?: string;
  stopOnCrash?: boolean;
  /** How long to wait after the campaign for replay / minimize jobs of its new buckets. */
  maintenanceWait?: string;
  /** Wasm engine: the binaryen package directory under test (`-o optimizer=DIR`). */
  optimizer?: string;
  /** Wasm engine: a wasm-opt command under test (`-o optimizerCmd=CMD`). */
  optimizerCmd?: string;
}

/** The generator preset a wasm campaign fuzzes when no target is named. */
export const DEFAULT_WASM_GENERATOR = "default";

/** `--optimizer` / `--optimizer-cmd` are the wasm engine's optimizer-under-test options, spelled as flags. */
function optimizerOptions(f: FuzzFlags, engine: string): Record<string, unknown> {
  if (!f.optimizer && !f.optimizerCmd) return {};
  if (engine !== "wasm") throw new FuzzFarmError("FF_ERR_CONFIG", "--optimizer and --optimizer-cmd apply to the wasm engine (--engine wasm)");
  if (f.optimizer && !existsSync(f.optimizer)) throw new FuzzFarmError("FF_ERR_CONFIG", `--optimizer ${f.optimizer}: no such directory`);
  return { ...(f.optimizer ? { optimizer: resolve(f.optimizer) } : {}), ...(f.optimizerCmd ? { optimizerCmd: f.optimizerCmd } : {}) };
}

/** True while a new bucket of the campaign has not been replayed yet, or a replay / minimize job is open. */
async function maintenancePending(db: Db, campaignId: string): Promise<boolean> {
  if ((await countOpenJobs(db, campaignId, "maintenance")) > 0) return true;
  const s = await campaignSummary(db, campaignId);
  const fresh = s.buckets.filter((b) => b.isNew).map((b) => `replay-${b.id}`);
  if (!fresh.length) return false;
  return (await countFinishedJobs(db, fresh)) < fresh.length;
}

export function parseOptions(pairs: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of pairs) {
    const i = p.indexOf("=");
    if (i <= 0) throw new Error(`bad --option "${p}" (use key=value)`);
    const k = p.slice(0, i);
    const raw = p.slice(i + 1);
    let v: unknown = raw;
    try {
      v = JSON.parse(raw);
    } catch {
      // plain string
    }
    if (k.includes(".")) {
      const [a, b] = k.split(".", 2) as [string, string];
      out[a] = { ...((out[a] as object) ?? {}), [b]: v };
    } else out[k] = v;
  }
  return out;
}

export async function fuzzCommand(targetArg: string | undefined, f: FuzzFlags, config: Config, out = process.stdout, err = process.stderr): Promise<number> {
  if (targetArg === undefined && f.engine !== "wasm") throw new FuzzFarmError("FF_ERR_CONFIG", "missing target (a file; only --engine wasm has a default, its generator)");
  const target = resolveTarget(targetArg ?? DEFAULT_WASM_GENERATOR, f.engine, f.targetVersion);
  const seconds = parseDuration(f.time, { flag: "--time", max: MAX_CAMPAIGN_SECONDS });
  const options = { ...parseOptions(f.option), ...optimizerOptions(f, target.engine) };
  const jobSeconds = f.jobSeconds ? parseDuration(f.jobSeconds, { flag: "--job-seconds", max: MAX_CAMPAIGN_SECONDS }) : Math.min(config.jobSeconds, Math.max(1, seconds / 4));
  const maintenanceWait = parseDuration(f.maintenanceWait ?? "90s", { flag: "--maintenance-wait", min: 0 });
  const nWorkers = f.workers ?? config.workers;
  const campaign = {
    target: { name: target.name, path: target.path, version: target.version },
    engine: target.engine,
    options,
    seconds,
    jobSeconds,
    runsPerJob: f.runsPerJob,
  };
  // Options are checked before anything starts or is queued.
  validateCampaignConfig(campaign.target, { engine: campaign.engine, options, jobSeconds, runsPerJob: f.runsPerJob });
  // an optimizer under test that cannot work at all (no binaryen there, cannot read atomics) is refused here
  if (campaign.engine === "wasm") await (await import("@fuzzfarm/engine-wasm")).checkWasmCampaignOptions(options);
  const farm = await openFarm(config);
  // Log lines go to stderr in --json mode too (stdout carries only the summary): a refused replay must be visible.
  const logger = cliLogger(err, config.logLevel);
  const coordinator = await startCoordinator({ db: farm.db, queues: farm.queues, redisUrl: config.redisUrl, rootDir: PROJECT_ROOT, only: [], logger: cliLogger(err, config.logLevel, "coordinator: ") });
  // the workers' own log stays out of this command's output (its coordinator reports what they did)
  // An optimizer the operator names here (--optimizer, --optimizer-cmd, -o) is trusted: this command's workers allow it.
  const operatorOptimizers = [options.optimizer, options.optimizerCmd].filter((v): v is string => typeof v === "string" && v.length > 0);
  const allowed = [...(config.allowedOptimizers ?? []), ...operatorOptimizers];
  const workers = startLocalWorkers(config, nWorkers, silentLogger(), allowed.length ? { FUZZFARM_ALLOWED_OPTIMIZERS: allowed.join(";") } : {});
  let camp: { id: string };
  try {
    // The time box is fuzzing time: it starts once a local worker is up.
    if (!(await waitForLocalWorker(workers, farm.queues.connection, config.queuePrefix)))
      logger.warn("no local worker came up within 60s; the campaign starts anyway (remote workers may join)");
    camp = await coordinator.createCampaign(campaign);
  } catch (e) {
    await Promise.all([coordinator.stop(), workers.stop()]);
    await farm.close();
    throw e;
  }
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    err.write("stopping: waiting for running jobs to report...\n");
    void coordinator.stopCampaign(camp.id);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  if (!f.json) err.write(`campaign ${camp.id}: ${target.engine} engine on ${target.path} for ${seconds}s with ${nWorkers} local workers\n`);
  if (f.stopOnCrash)
    coordinator.on("result", (r: ResultApplied) => {
      if (r.campaignId === camp.id && r.newBuckets.length && !stopping) {
        stopping = true;
        logger.info({ campaignId: camp.id }, "first crash found: stopping (--stop-on-crash)");
        void coordinator.stopCampaign(camp.id);
      }
    });
  const progress = setInterval(async () => {
    if (f.json) return;
    // a progress line skipped (database busy or restarting) comes back on the next tick; the final summary reports errors
    const s = await campaignSummary(farm.db, camp.id).catch(() => null);
    if (s) err.write(`${progressLine(s)}\n`);
  }, 2000);
  let status: string;
  try {
    status = await coordinator.waitForCampaign(camp.id);
    // New buckets get replayed (reproduction rate) and minimized by maintenance jobs: give them time to land.
    const until = Date.now() + maintenanceWait * 1000;
    while (status !== "failed" && Date.now() < until && (await maintenancePending(farm.db, camp.id))) await new Promise((r) => setTimeout(r, 250));
  } catch (e) {
    // the error above is the one to report
    await farm.close().catch(() => {});
    throw e;
  } finally {
    clearInterval(progress);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await coordinator.stop();
    await workers.stop();
  }
  const failure = status === "failed" ? (await campaignOutcome(farm.db, camp.id)).reason : undefined;
  const s = await campaignSummary(farm.db, camp.id);
  // The summary is written before the farm's connections close: it must not depend on a clean shutdown.
  if (f.json) out.write(`${JSON.stringify(s)}\n`);
  else {
    err.write(`${progressLine(s)}\n`);
    for (const b of s.buckets)
      err.write(
        `${b.isNew ? "NEW " : "    "}${b.id}  ${b.kind.padEnd(9)} x${b.count}  ${terminalText(b.title)}\n` +
          `      reproduced ${b.reproduction.runs ? `${b.reproduction.hits}/${b.reproduction.runs} (${b.reproduction.label})` : "(not replayed yet)"}${b.minimized ? ", minimized" : ""}; reproduce: ${b.reproducer}\n`,
      );
    if (!s.buckets.length) err.write("no crashes found\n");
  }
  await farm.close();
  if (failure !== undefined) {
    // A campaign that could not fuzz at all is an error, not "no crashes found".
    err.write(`fuzzfarm: FF_ERR_CAMPAIGN_FAILED: campaign ${camp.id} failed: ${terminalText(failure)}\n`);
    return 2;
  }
  return s.buckets.some((b) => b.isNew) ? 1 : 0;
}
