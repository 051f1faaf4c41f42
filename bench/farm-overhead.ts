// Queue + database overhead per job against job work time.
//
// Runs real campaigns (coordinator in this process, N real worker processes,
// the input engine on examples/input/parse-record.ts) against real Redis and
// PostgreSQL for several job sizes, then measures from the job rows:
//   busy    = the engine's busy time of a job (what the worker is for)
//   gap     = time a worker spends between two consecutive jobs outside the
//             engine (fetch from Redis, validate, publish the result)
//   apply   = the coordinator's time to classify + persist one result
// and prints gap/busy and apply/busy: the overhead ratios. The farm's target
// is < 5% at the default job size (5 s).
//   node --import tsx bench/farm-overhead.ts [campaignSeconds=30] [workers=2]
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { createTestDatabase } from "@fuzzfarm/db/testing";
import { createDb } from "@fuzzfarm/db";
import { openQueues } from "@fuzzfarm/queue";
import { startCoordinator, type ResultApplied } from "@fuzzfarm/coordinator";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const seconds = Number(process.argv[2] ?? 30);
const workers = Number(process.argv[3] ?? 2);
const target = join(REPO, "examples", "input", "parse-record.ts");

async function measure(jobSeconds: number) {
  const database = await createTestDatabase();
  const prefix = `ffbench-${randomBytes(3).toString("hex")}`;
  const db = createDb({ url: database.url });
  const jobKey = randomBytes(32).toString("base64url");
  const queues = openQueues({ url: "redis://127.0.0.1:6379", prefix, jobKey });
  const env = { ...process.env, FUZZFARM_DATABASE_URL: database.url, FUZZFARM_QUEUE_PREFIX: prefix, FUZZFARM_SKIP_SELFTEST: "1", FUZZFARM_ENGINES: "input", FUZZFARM_JOB_KEY: jobKey };
  const procs = Array.from({ length: workers }, () => spawn(process.execPath, ["--import", "tsx", join(REPO, "apps/worker/src/main.ts")], { env, stdio: "ignore" }));
  const coordinator = await startCoordinator({ db, queues, redisUrl: "redis://127.0.0.1:6379", rootDir: REPO, only: [], maintenance: { replayRuns: 0 } });
  const applied: ResultApplied[] = [];
  coordinator.on("result", (r: ResultApplied) => applied.push(r));
  const c = await coordinator.createCampaign({ target: { name: "parse-record", path: target }, engine: "input", seconds, jobSeconds, options: { stopOnFinding: false } });
  await coordinator.waitForCampaign(c.id);
  await coordinator.stop();
  procs.forEach((p) => p.kill("SIGTERM"));
  const jobs = await db.prisma.job.findMany({ where: { campaignId: c.id, status: "done" }, orderBy: { finishedAt: "asc" } });
  const byWorker = new Map<string, typeof jobs>();
  for (const j of jobs) byWorker.set(j.workerId!, [...(byWorker.get(j.workerId!) ?? []), j]);
  let gapSum = 0;
  let gapN = 0;
  for (const list of byWorker.values())
    for (let i = 1; i < list.length; i++) {
      gapSum += list[i]!.finishedAt!.getTime() - list[i - 1]!.finishedAt!.getTime() - list[i]!.busyMs;
      gapN++;
    }
  const busy = jobs.reduce((n, j) => n + j.busyMs, 0) / Math.max(1, jobs.length);
  const gap = gapSum / Math.max(1, gapN);
  const apply = applied.reduce((n, a) => n + a.applyMs, 0) / Math.max(1, applied.length);
  await queues.close();
  await db.close();
  await database.drop();
  return { jobSeconds, jobs: jobs.length, busy, gap, apply };
}

console.log(`campaign ${seconds}s, ${workers} worker processes, input engine on examples/input/parse-record.ts`);
console.log("job size | jobs | busy ms/job | gap ms/job | gap/busy | apply ms/job | apply/busy");
for (const js of [1, 2, 5]) {
  const m = await measure(js);
  console.log(
    `${String(js).padStart(6)} s | ${String(m.jobs).padStart(4)} | ${m.busy.toFixed(0).padStart(11)} | ${m.gap.toFixed(1).padStart(10)} | ${((100 * m.gap) / m.busy).toFixed(2).padStart(7)}% | ${m.apply.toFixed(1).padStart(12)} | ${((100 * m.apply) / m.busy).toFixed(2).padStart(9)}%`,
  );
}
process.exit(0);
