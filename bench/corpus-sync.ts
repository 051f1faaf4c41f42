// Do workers build on each other's finds? A campaign on the eight-byte
// magic example (each byte found is a corpus entry the next byte needs; the
// dictionary off, so the literals do not give the bytes away) with 1 worker
// and with 3, several trials each (interleaved, so load from other work hits
// both counts alike), timed from when every worker is up: time until the
// campaign's coverage reaches the level the target allows, and the share of
// jobs that started from a corpus entry another worker found.
//   node --import tsx bench/corpus-sync.ts [--trials 3] [--seconds 60] [--workers 1,3]
//                                          [--job-seconds 2] [--cpu-per-worker 0.4]
//
// Default (no --cpu-per-worker): the worker processes share this machine's
// cores. It has 2: 3 worker processes get no more CPU than 2, so the honest
// expectation there is at most ~2x, and only if the corpus is shared.
//
// --cpu-per-worker C models hosts of fixed size: each worker process and
// every child it forks runs in its own cgroup capped at C cores
// (bench/lib/cpu-hosts.ts; root and cgroup v1 needed), so 1 worker has C
// cores and 3 have 3C, as 3 hosts would. Pick 3C below the core count minus
// what the coordinator, Redis and PostgreSQL need (0.4 on 2 cores: 1.2 for
// the workers). Each trial prints the CPU every worker actually got over the
// timed window (cpuacct) and the share of CFS periods it was throttled in,
// so a reader sees whether the cap held and whether the machine delivered it.
//
// Why this target: magic-bytes is the hard case for parallel fuzzing (byte
// k+1 is only reachable from an input with bytes 0..k), so 3 workers gain
// from sharing only when a find reaches the others before they find it
// themselves. A find reaches another worker through the corpus at the next
// job planned after its job ends (the coordinator keeps 2 jobs per worker
// queued, so up to two job lengths later); 3 workers also gain by racing:
// three jobs at a time try for the next byte.
// Why the job length matters under a cap: every job starts a new executor
// process and instruments the target again (the instrument cache lives in
// the job's own work directory), about 0.8 CPU-s (estimated from the execs
// column). Uncapped that is a small part of a 2 s job; at 0.4 core it is
// ~1.9 s of wall time, so a 2 s job runs a few thousand inputs where a 6 s
// job runs ~160k. --job-seconds 2 stays the default (the uncapped runs used it);
// with --cpu-per-worker 0.4, docs/capacity.md reports 6 s (most of each job
// fuzzes) and 2 s (start-up bound) side by side.
import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { createDb } from "@fuzzfarm/db";
import { createTestDatabase } from "@fuzzfarm/db/testing";
import { openQueues, readHeartbeats } from "@fuzzfarm/queue";
import { startCoordinator } from "@fuzzfarm/coordinator";
import { CgroupUnavailable, openCpuHosts, type CpuHost, type CpuHosts } from "./lib/cpu-hosts";

const argv = process.argv.slice(2);
const opt = (n: string, d: string) => (argv.includes(`--${n}`) ? argv[argv.indexOf(`--${n}`) + 1]! : d);
const TRIALS = Number(opt("trials", "3"));
const SECONDS = Number(opt("seconds", "60"));
const COUNTS = opt("workers", "1,3").split(",").map(Number);
const JOB_SECONDS = Number(opt("job-seconds", "2"));
const CPU = argv.includes("--cpu-per-worker") ? Number(opt("cpu-per-worker", "")) : null;
const REPO = fileURLToPath(new URL("..", import.meta.url));
const TARGET = join(REPO, "examples", "input", "magic-bytes.ts");
const WORKER = join(REPO, "apps", "worker", "src", "main.ts");
/** Longest wait for every worker's first heartbeat (a capped worker boots slowly). */
const BOOT_TIMEOUT_MS = 180_000;

if (CPU !== null && !(CPU > 0 && CPU <= availableParallelism())) {
  console.error(`corpus-sync: --cpu-per-worker must be a number of cores in (0, ${availableParallelism()}]`);
  process.exit(2);
}

interface Trial {
  workers: number;
  toFull: number | null;
  /** Coverage reached, as "covered/total" counters. */
  covered: string;
  jobs: number;
  /** Inputs run by the campaign's done jobs (how much of the CPU went into fuzzing rather than job start-up). */
  execs: number;
  crossSeeded: number;
  seededJobs: number;
  /** Per worker over the timed window: cores used (CPU s / wall s) and share of CFS periods throttled. */
  cpu: { cores: number; throttled: number }[];
}

// What a signal or an error must clean up.
let hosts: CpuHosts | null = null;
const live = new Set<ChildProcess>();
/** The running trial's database (dropped WITH (FORCE), so open connections do not stop it). */
let liveDatabase: { drop(): Promise<void> } | null = null;

async function cleanup() {
  for (const p of live) p.kill("SIGKILL");
  live.clear();
  if (hosts) await hosts.removeAll();
  hosts = null;
  if (liveDatabase) await liveDatabase.drop();
  liveDatabase = null;
}

for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    void cleanup().finally(() => process.exit(130));
  });
}

async function trial(workers: number, seed: number, index: number): Promise<Trial> {
  const database = await createTestDatabase();
  liveDatabase = database;
  const db = createDb({ url: database.url });
  const prefix = `ffsync-${randomBytes(3).toString("hex")}`;
  const jobKey = randomBytes(32).toString("base64url");
  const queues = openQueues({ url: "redis://127.0.0.1:6379", prefix, jobKey });
  const env = { ...process.env, FUZZFARM_DATABASE_URL: database.url, FUZZFARM_QUEUE_PREFIX: prefix, FUZZFARM_SKIP_SELFTEST: "1", FUZZFARM_ENGINES: "input", FUZZFARM_JOB_KEY: jobKey };
  const groups: CpuHost[] = hosts ? Array.from({ length: workers }, (_, i) => hosts!.create(`t${index}-w${workers}-${i}`, CPU!)) : [];
  const procs: ChildProcess[] = Array.from({ length: workers }, (_, i) => {
    const cmd = [process.execPath, "--import", "tsx", WORKER];
    // capped: a shell enters the worker's groups, then execs node (same pid), so nothing runs outside them
    const p = groups[i] ? spawn("/bin/sh", ["-c", groups[i]!.enter, "sh", ...cmd], { env, stdio: "ignore" }) : spawn(cmd[0]!, cmd.slice(1), { env, stdio: "ignore" });
    live.add(p);
    return p;
  });
  const coordinator = await startCoordinator({ db, queues, redisUrl: "redis://127.0.0.1:6379", rootDir: REPO, seed, maintenance: { replayRuns: 0 } });
  try {
    // The clock starts once every worker is up: booting 3 processes on 2 cores is not what is measured.
    const pids = new Set(procs.map((p) => p.pid));
    const bootBy = Date.now() + BOOT_TIMEOUT_MS;
    while ((await readHeartbeats(queues.connection, prefix)).filter((h) => pids.has(h.pid)).length < workers) {
      if (Date.now() > bootBy) throw new Error(`${workers} workers not all up after ${BOOT_TIMEOUT_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Dictionary off: the literals would give the bytes away and one job would solve it alone.
    const c = await coordinator.createCampaign({ target: { name: "magic-bytes", path: TARGET }, engine: "input", seconds: SECONDS, jobSeconds: JOB_SECONDS, options: { stopOnFinding: false, dictionary: false } });
    const t0 = Date.now();
    const cpu0 = groups.map((g) => ({ s: g.usage(), ...g.throttling() }));
    let cpu1: typeof cpu0 | null = null;
    let t1 = 0;
    let toFull: number | null = null;
    let covered = "0/0";
    const poll = setInterval(async () => {
      const row = await db.prisma.campaign.findUnique({ where: { id: c.id }, select: { covered: true, coverageTotal: true } }).catch(() => null);
      if (!row || toFull !== null) return;
      covered = `${row.covered}/${row.coverageTotal}`;
      if (row.coverageTotal > 0 && row.covered >= row.coverageTotal) {
        t1 = Date.now();
        cpu1 = groups.map((g) => ({ s: g.usage(), ...g.throttling() }));
        toFull = (t1 - t0) / 1000;
      }
    }, 250);
    // Stop as soon as the target is fully covered: the question is how fast, not what comes after.
    while (toFull === null && Date.now() - t0 < SECONDS * 1000) await new Promise((r) => setTimeout(r, 250));
    clearInterval(poll);
    if (!cpu1) {
      t1 = Date.now();
      cpu1 = groups.map((g) => ({ s: g.usage(), ...g.throttling() }));
    }
    const wall = (t1 - t0) / 1000;
    const cpu = groups.map((_, i) => {
      const [a, b] = [cpu0[i]!, cpu1![i]!];
      const periods = b.periods - a.periods;
      return { cores: (b.s - a.s) / wall, throttled: periods ? (b.throttled - a.throttled) / periods : 0 };
    });
    await coordinator.stopCampaign(c.id);
    // Cross-worker seeding: a job whose seeds include a corpus entry found by a job that ran on another worker.
    const jobs = await db.prisma.job.findMany({ where: { campaignId: c.id, status: "done" }, select: { id: true, workerId: true, payload: true, execs: true } });
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
    const execs = jobs.reduce((n, j) => n + j.execs, 0);
    return { workers, toFull, covered, jobs: jobs.length, execs, crossSeeded, seededJobs, cpu };
  } finally {
    await coordinator.stop();
    for (const p of procs) {
      p.kill("SIGKILL");
      live.delete(p);
    }
    for (const g of groups) await hosts!.remove(g);
    await queues.close();
    await db.close();
    await database.drop();
    liveDatabase = null;
  }
}

async function main() {
  if (CPU !== null) hosts = openCpuHosts();
  const fmtCpu = (t: Trial) => (t.cpu.length ? t.cpu.map((c) => `${c.cores.toFixed(2)}${c.throttled ? ` (${Math.round(c.throttled * 100)}%)` : ""}`).join(", ") : "-");
  console.log(
    `magic-bytes, input engine, ${JOB_SECONDS} s jobs, up to ${SECONDS} s per trial, ${TRIALS} trials; ${availableParallelism()} cores on this machine, load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}; ` +
      (CPU === null ? "workers uncapped (they share the machine's cores)" : `each worker capped at ${CPU} core (its own cgroup ${hosts!.parent}/...)`),
  );
  console.log(`trial | workers | seconds to full coverage | jobs | execs (k) | seeded from another worker's find | cores each worker got${CPU === null ? "" : " (share of periods throttled)"}`);
  const rows: Trial[] = [];
  // Interleaved: trial t runs every worker count before trial t+1.
  for (let t = 0; t < TRIALS; t++) {
    for (const w of COUNTS) {
      const r = await trial(w, 1000 + t, t);
      rows.push(r);
      console.log(
        `${String(t + 1).padStart(5)} | ${String(w).padStart(7)} | ${(r.toFull === null ? `>${SECONDS} (covered ${r.covered})` : r.toFull.toFixed(1)).padStart(24)} | ${String(r.jobs).padStart(4)} | ${(r.execs / 1000).toFixed(0).padStart(9)} | ${`${r.crossSeeded}/${r.seededJobs}`.padStart(33)} | ${fmtCpu(r)}`,
      );
    }
  }
  console.log(`load average now ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  console.log("workers | seconds to full coverage (per trial)        | median | jobs seeded from another worker's find | mean cores per worker");
  const medians: Record<number, number> = {};
  for (const w of COUNTS) {
    const mine = rows.filter((r) => r.workers === w);
    const times = mine.map((r) => r.toFull ?? Infinity).sort((a, b) => a - b);
    medians[w] = times[Math.floor(times.length / 2)]!;
    const cross = mine.reduce((n, r) => n + r.crossSeeded, 0);
    const seeded = mine.reduce((n, r) => n + r.seededJobs, 0);
    const cores = mine.flatMap((r) => r.cpu.map((c) => c.cores));
    console.log(
      `${String(w).padStart(7)} | ${mine.map((r) => (r.toFull === null ? `>${SECONDS} (${r.covered})` : r.toFull.toFixed(1))).join(", ").padEnd(43)} | ${medians[w] === Infinity ? "-" : medians[w]!.toFixed(1)} | ${cross}/${seeded} | ${cores.length ? (cores.reduce((a, b) => a + b, 0) / cores.length).toFixed(2) : "-"}`,
    );
  }
  if (COUNTS.length >= 2) {
    const [a, b] = [COUNTS[0]!, COUNTS[COUNTS.length - 1]!];
    const [ma, mb] = [medians[a]!, medians[b]!];
    // a median past the time limit: the ratio is a bound, or nothing if both are past it
    const ratio = mb === Infinity ? (ma === Infinity ? "not measured (neither median reached full coverage)" : `below ${(ma / SECONDS).toFixed(2)}x`) : ma === Infinity ? `above ${(SECONDS / mb).toFixed(2)}x` : `${(ma / mb).toFixed(2)}x`;
    console.log(`speed-up of ${b} workers over ${a}: ${ratio} (median time to full coverage)`);
  }
}

main()
  .then(cleanup)
  .then(() => process.exit(0))
  .catch(async (e) => {
    await cleanup().catch((c) => console.error(`corpus-sync: cleanup: ${(c as Error).message}`));
    console.error(`corpus-sync: ${e instanceof CgroupUnavailable ? e.message : (e as Error).stack ?? e}`);
    process.exit(2);
  });
