// Do workers build on each other's finds? A campaign on the eight-byte
// magic example (each byte found is a corpus entry the next byte needs; the
// dictionary off, so the literals do not give the bytes away) with 1 worker
// and with 3, several trials each, timed from when every worker is up: time
// until the campaign's coverage reaches the level the target allows, and the
// share of jobs that started from a corpus entry another worker found.
//   node --import tsx bench/corpus-sync.ts [--trials 3] [--seconds 60] [--workers 1,3]
// This machine has 2 cores: 3 worker processes share them, so the honest
// expectation is at most ~2x, and only if the corpus is shared.
import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { createDb } from "@fuzzfarm/db";
import { createTestDatabase } from "@fuzzfarm/db/testing";
import { openQueues, readHeartbeats } from "@fuzzfarm/queue";
import { startCoordinator } from "@fuzzfarm/coordinator";

const argv = process.argv.slice(2);
const opt = (n: string, d: string) => (argv.includes(`--${n}`) ? argv[argv.indexOf(`--${n}`) + 1]! : d);
const TRIALS = Number(opt("trials", "3"));
const SECONDS = Number(opt("seconds", "60"));
const COUNTS = opt("workers", "1,3").split(",").map(Number);
const REPO = fileURLToPath(new URL("..", import.meta.url));
const TARGET = join(REPO, "examples", "input", "magic-bytes.ts");
const WORKER = join(REPO, "apps", "worker", "src", "main.ts");

interface Trial {
  toFull: number | null;
  covered: number;
  jobs: number;
  crossSeeded: number;
  seededJobs: number;
}

async function trial(workers: number, seed: number): Promise<Trial> {
  const database = await createTestDatabase();
  const db = createDb({ url: database.url });
  const prefix = `ffsync-${randomBytes(3).toString("hex")}`;
  const jobKey = randomBytes(32).toString("base64url");
  const queues = openQueues({ url: "redis://127.0.0.1:6379", prefix, jobKey });
  const env = { ...process.env, FUZZFARM_DATABASE_URL: database.url, FUZZFARM_QUEUE_PREFIX: prefix, FUZZFARM_SKIP_SELFTEST: "1", FUZZFARM_ENGINES: "input", FUZZFARM_JOB_KEY: jobKey };
  const procs: ChildProcess[] = Array.from({ length: workers }, () => spawn(process.execPath, ["--import", "tsx", WORKER], { env, stdio: "ignore" }));
  const coordinator = await startCoordinator({ db, queues, redisUrl: "redis://127.0.0.1:6379", rootDir: REPO, seed, maintenance: { replayRuns: 0 } });
  // The clock starts once every worker is up: booting 3 processes on 2 cores is not what is measured.
  const pids = new Set(procs.map((p) => p.pid));
  while ((await readHeartbeats(queues.connection, prefix)).filter((h) => pids.has(h.pid)).length < workers) await new Promise((r) => setTimeout(r, 200));
  // Dictionary off: the literals would give the bytes away and one job would solve it alone.
  const c = await coordinator.createCampaign({ target: { name: "magic-bytes", path: TARGET }, engine: "input", seconds: SECONDS, jobSeconds: 2, options: { stopOnFinding: false, dictionary: false } });
  const t0 = Date.now();
  let toFull: number | null = null;
  let covered = 0;
  const poll = setInterval(async () => {
    const row = await db.prisma.campaign.findUnique({ where: { id: c.id }, select: { covered: true, coverageTotal: true } }).catch(() => null);
    if (!row) return;
    covered = row.covered;
    if (toFull === null && row.coverageTotal > 0 && row.covered >= row.coverageTotal) toFull = (Date.now() - t0) / 1000;
  }, 250);
  // Stop as soon as the target is fully covered: the question is how fast, not what comes after.
  while (toFull === null && Date.now() - t0 < SECONDS * 1000) await new Promise((r) => setTimeout(r, 250));
  clearInterval(poll);
  await coordinator.stopCampaign(c.id);
  await coordinator.stop();
  procs.forEach((p) => p.kill("SIGKILL"));
  // Cross-worker seeding: a job whose seeds include a corpus entry found by a job that ran on another worker.
  const jobs = await db.prisma.job.findMany({ where: { campaignId: c.id, status: "done" }, select: { id: true, workerId: true, payload: true } });
  const entries = await db.prisma.corpusEntry.findMany({ where: { campaignId: c.id }, select: { id: true, jobId: true } });
  const workerOfJob = new Map(jobs.map((j) => [j.id, j.workerId]));
  const finder = new Map(entries.map((e) => [e.id, e.jobId ? workerOfJob.get(e.jobId) : undefined]));
  let crossSeeded = 0;
  let seededJobs = 0;
  for (const j of jobs) {
    const seeds = ((j.payload as { seeds?: { id?: string }[] }).seeds ?? []).map((s) => s.id).filter(Boolean) as string[];
    if (!seeds.length) continue;
    seededJobs++;
    if (seeds.some((id) => finder.get(id) && finder.get(id) !== j.workerId)) crossSeeded++;
  }
  await queues.close();
  await db.close();
  await database.drop();
  return { toFull, covered, jobs: jobs.length, crossSeeded, seededJobs };
}

console.log(`magic-bytes, input engine, 2 s jobs, up to ${SECONDS} s per trial, ${TRIALS} trials; ${availableParallelism()} cores on this machine`);
console.log("workers | seconds to full coverage (per trial)        | median | jobs seeded from another worker's find");
const medians: Record<number, number> = {};
for (const w of COUNTS) {
  const rows: Trial[] = [];
  for (let t = 0; t < TRIALS; t++) rows.push(await trial(w, 1000 + t));
  const times = rows.map((r) => r.toFull ?? Infinity).sort((a, b) => a - b);
  medians[w] = times[Math.floor(times.length / 2)]!;
  const cross = rows.reduce((n, r) => n + r.crossSeeded, 0);
  const seeded = rows.reduce((n, r) => n + r.seededJobs, 0);
  console.log(
    `${String(w).padStart(7)} | ${rows.map((r) => (r.toFull === null ? `>${SECONDS} (${r.covered})` : r.toFull.toFixed(1))).join(", ").padEnd(43)} | ${medians[w] === Infinity ? "-" : medians[w]!.toFixed(1)} | ${cross}/${seeded}`,
  );
}
if (COUNTS.length >= 2) {
  const [a, b] = [COUNTS[0]!, COUNTS[COUNTS.length - 1]!];
  console.log(`speed-up of ${b} workers over ${a}: ${(medians[a]! / medians[b]!).toFixed(2)}x (median time to full coverage)`);
}
process.exit(0);
