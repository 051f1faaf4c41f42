// `fuzzfarm fuzz <target>`: create a campaign, supervise it with a private
// coordinator, run N local workers (remote workers may join), show progress,
// and exit 0 (no crash), 1 (new buckets) or 2 (usage / infrastructure error).
import { startCoordinator, type ResultApplied } from "@fuzzfarm/coordinator";
import type { Config } from "@fuzzfarm/config";
import type { Db } from "@fuzzfarm/db";
import { openFarm, REPO_ROOT } from "../context";
import { startLocalWorkers } from "../local-workers";
import { campaignSummary, progressLine } from "./summary";
import { parseDuration, resolveTarget } from "./targets";

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
}

/** True while a new bucket of the campaign has not been replayed yet, or a replay / minimize job is open. */
async function maintenancePending(db: Db, campaignId: string): Promise<boolean> {
  if ((await db.prisma.job.count({ where: { campaignId, status: "queued", kind: { not: "fuzz" } } })) > 0) return true;
  const s = await campaignSummary(db, campaignId);
  const fresh = s.buckets.filter((b) => b.isNew).map((b) => `replay-${b.id}`);
  if (!fresh.length) return false;
  return (await db.prisma.job.count({ where: { id: { in: fresh }, status: { not: "queued" } } })) < fresh.length;
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

export async function fuzzCommand(targetArg: string, f: FuzzFlags, config: Config, out = process.stdout, err = process.stderr): Promise<number> {
  const target = resolveTarget(targetArg, f.engine, f.targetVersion);
  const seconds = parseDuration(f.time);
  const options = parseOptions(f.option);
  const farm = await openFarm(config);
  const log = (l: string) => (f.json ? undefined : err.write(`${l}\n`));
  const coordinator = await startCoordinator({ db: farm.db, queues: farm.queues, redisUrl: config.redisUrl, rootDir: REPO_ROOT, only: [], log: (l) => log(`coordinator: ${l}`) });
  const workers = startLocalWorkers(config, f.workers ?? config.workers, () => {});
  let stopping = false;
  const camp = await coordinator.createCampaign({
    target: { name: target.name, path: target.path, version: target.version },
    engine: target.engine,
    options,
    seconds,
    jobSeconds: f.jobSeconds ? parseDuration(f.jobSeconds) : Math.min(config.jobSeconds, Math.max(1, seconds / 4)),
    runsPerJob: f.runsPerJob,
  });
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    err.write("stopping: waiting for running jobs to report...\n");
    void coordinator.stopCampaign(camp.id);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  if (!f.json) err.write(`campaign ${camp.id}: ${target.engine} engine on ${target.path} for ${seconds}s with ${f.workers ?? config.workers} local workers\n`);
  if (f.stopOnCrash)
    coordinator.on("result", (r: ResultApplied) => {
      if (r.campaignId === camp.id && r.newBuckets.length && !stopping) {
        stopping = true;
        log("first crash found: stopping (--stop-on-crash)");
        void coordinator.stopCampaign(camp.id);
      }
    });
  const progress = setInterval(async () => {
    if (f.json) return;
    const s = await campaignSummary(farm.db, camp.id).catch(() => null);
    if (s) err.write(`${progressLine(s)}\n`);
  }, 2000);
  try {
    await coordinator.waitForCampaign(camp.id);
    // New buckets get replayed (reproduction rate) and minimized by maintenance jobs: give them time to land.
    const until = Date.now() + parseDuration(f.maintenanceWait ?? "90s") * 1000;
    while (Date.now() < until && (await maintenancePending(farm.db, camp.id))) await new Promise((r) => setTimeout(r, 250));
  } finally {
    clearInterval(progress);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await coordinator.stop();
    await workers.stop();
  }
  const s = await campaignSummary(farm.db, camp.id);
  await farm.close();
  if (f.json) out.write(`${JSON.stringify(s)}\n`);
  else {
    err.write(`${progressLine(s)}\n`);
    for (const b of s.buckets)
      err.write(
        `${b.isNew ? "NEW " : "    "}${b.id}  ${b.kind.padEnd(9)} x${b.count}  ${b.title}\n` +
          `      reproduced ${b.reproduction.runs ? `${b.reproduction.hits}/${b.reproduction.runs} (${b.reproduction.label})` : "(not replayed yet)"}${b.minimized ? ", minimized" : ""}; reproduce: ${b.reproducer}\n`,
      );
    if (!s.buckets.length) err.write("no crashes found\n");
  }
  return s.buckets.some((b) => b.isNew) ? 1 : 0;
}
