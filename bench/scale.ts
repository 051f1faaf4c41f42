// Capacity of one Redis and one PostgreSQL: what a job and a result cost
// them, and how many results per second one coordinator applies.
//   node --import tsx bench/scale.ts [--jobs 600] [--job-seconds 5] [--features 40]
// Phases, on a private redis-server (so INFO commandstats counts only this
// bench) and a fresh database (pg_stat_database of that database only):
//   enqueue   the coordinator side enqueues N signed jobs
//   consume   BullMQ workers take them and publish a result each (what a
//             farm worker does around its engine; no engine runs here)
//   apply     the coordinator's result consumer persists the N results
//             (features, corpus candidates, one finding in 25)
// Prints commands and writes per job and per result, jobs/s and results/s,
// and the worker count those figures carry at the given job length.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { connect as netConnect } from "node:net";
import pg from "pg";
import { createDb, createCampaign, insertJobs, upsertTarget } from "@fuzzfarm/db";
import { createTestDatabase } from "@fuzzfarm/db/testing";
import { connect, enqueueJob, jobQueueName, openQueues, publishResult, QueueWorker, type ConnectionOptions } from "@fuzzfarm/queue";
import { parseJob, parseResult, type JobPayload } from "@fuzzfarm/protocol";
import { startCoordinator } from "@fuzzfarm/coordinator";

const argv = process.argv.slice(2);
const opt = (n: string, d: number) => (argv.includes(`--${n}`) ? Number(argv[argv.indexOf(`--${n}`) + 1]) : d);
const N = opt("jobs", 600);
const JOB_SECONDS = opt("job-seconds", 5);
const FEATURES = opt("features", 40);
const REPO = fileURLToPath(new URL("..", import.meta.url));

const port = 22_000 + Math.floor(Math.random() * 20_000);
const server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
const url = `redis://127.0.0.1:${port}`;
for (let i = 0; i < 100; i++) {
  const up = await new Promise<boolean>((res) => {
    const s = netConnect(port, "127.0.0.1", () => (s.destroy(), res(true)));
    s.on("error", () => res(false));
  });
  if (up) break;
  await new Promise((r) => setTimeout(r, 100));
}
const admin = connect(url);

async function redisCalls(): Promise<number> {
  const info = await admin.info("commandstats");
  let n = 0;
  for (const m of info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) if (m[1] !== "info") n += Number(m[2]);
  return n;
}

const database = await createTestDatabase();
const dbName = new URL(database.url).pathname.slice(1);
const stats = new pg.Client({ connectionString: "postgresql://postgres@127.0.0.1:5432/postgres" });
await stats.connect();
async function pgWrites() {
  await new Promise((r) => setTimeout(r, 1200)); // backends flush their counters about once a second
  const r = await stats.query(`SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = $1`, [dbName]);
  const row = r.rows[0] as Record<string, string>;
  return { commits: Number(row.xact_commit), rows: Number(row.tup_inserted) + Number(row.tup_updated) + Number(row.tup_deleted) };
}

const db = createDb({ url: database.url });
const prefix = `ffscale-${randomBytes(3).toString("hex")}`;
const jobKey = randomBytes(32).toString("base64url");
const queues = openQueues({ url, prefix, jobKey });
const target = await upsertTarget(db, { name: "scale", engine: "node", path: `${REPO}examples/node-races/late-listener.js`, version: "v1" });
const camp = await createCampaign(db, { targetId: target.id, engine: "node", config: {}, deadline: new Date(Date.now() + 3600_000) });
const payloads: JobPayload[] = Array.from({ length: N }, (_, i) =>
  parseJob({ jobId: `${camp.id}-${i}`, campaignId: camp.id, engine: "node", kind: "fuzz", target: { name: "scale", path: target.path, version: "v1" }, budget: { runs: 100, seconds: JOB_SECONDS }, options: { seed: i } }),
);
await insertJobs(db, payloads.map((p) => ({ id: p.jobId, campaignId: camp.id, kind: "fuzz", payload: p })));

// ---- enqueue ----
let c0 = await redisCalls();
let t0 = performance.now();
for (const p of payloads) await enqueueJob(queues, p);
const enqueueS = (performance.now() - t0) / 1000;
const enqueueCalls = (await redisCalls()) - c0;

// ---- consume ----
c0 = await redisCalls();
t0 = performance.now();
let consumed = 0;
const workerConns = [connect(url), connect(url)];
const done = new Promise<void>((resolve) => {
  const workers = workerConns.map(
    (connection) =>
      new QueueWorker(
        jobQueueName("node", "fuzz"),
        async (job) => {
          const p = job.data as JobPayload;
          const now = new Date().toISOString();
          const i = Number(p.jobId.split("-").pop());
          await publishResult(
            queues,
            parseResult({
              jobId: p.jobId, campaignId: p.campaignId, workerId: `bench-${i % 4}`, engine: "node", kind: "fuzz", startedAt: now, finishedAt: now,
              execs: 100, busyMs: JOB_SECONDS * 1000, featureTotal: 500,
              // Mostly features seen before, a few new ones: a campaign's steady state.
              features: Array.from({ length: FEATURES }, (_, k) => `race:site${(i * 7 + k) % 400}|site${k % 13}`),
              corpusCandidates: i % 10 === 0 ? [{ data: Buffer.from(`seed-${i}`).toString("base64"), features: [`race:new${i}`] }] : [],
              findings: i % 25 === 0 ? [{ kind: "crash", crashKind: "uncaught", message: "Error: late listener", stack: `Error: late listener\n    at onData (${target.path}:24:11)`, reproducer: { engine: "node", options: {}, input: "" }, detail: {} }] : [],
              strategyYield: { mix: { execs: 100, newFeatures: 1, findings: i % 25 === 0 ? 1 : 0 } },
            }),
          );
          if (++consumed === N) resolve();
        },
        { connection: connection as ConnectionOptions, prefix, concurrency: 8 },
      ),
  );
  void workers;
});
await done;
const consumeS = (performance.now() - t0) / 1000;
const consumeCalls = (await redisCalls()) - c0;

// ---- apply ----
c0 = await redisCalls();
const w0 = await pgWrites();
t0 = performance.now();
const coordinator = await startCoordinator({ db, queues, redisUrl: url, rootDir: REPO, only: [], maintenance: { replayRuns: 0 } });
let applied = 0;
await new Promise<void>((resolve) => coordinator.on("result", () => ++applied === N && resolve()));
const applyS = (performance.now() - t0) / 1000;
await coordinator.stop();
const applyCalls = (await redisCalls()) - c0;
const w1 = await pgWrites();

const perJob = (n: number) => (n / N).toFixed(1);
const resultsPerS = N / applyS;
console.log(`${N} jobs, ${FEATURES} features per result, one finding in 25, a corpus candidate in 10; private redis-server, fresh database`);
console.log(`phase    | seconds | per second | Redis commands per job | PG commits per result | PG rows written per result`);
console.log(`enqueue  | ${enqueueS.toFixed(2).padStart(7)} | ${(N / enqueueS).toFixed(0).padStart(10)} | ${perJob(enqueueCalls).padStart(22)} |`);
console.log(`consume  | ${consumeS.toFixed(2).padStart(7)} | ${(N / consumeS).toFixed(0).padStart(10)} | ${perJob(consumeCalls).padStart(22)} |`);
console.log(`apply    | ${applyS.toFixed(2).padStart(7)} | ${resultsPerS.toFixed(0).padStart(10)} | ${perJob(applyCalls).padStart(22)} | ${((w1.commits - w0.commits) / N).toFixed(1).padStart(21)} | ${((w1.rows - w0.rows) / N).toFixed(1).padStart(26)}`);
const redisPerJob = (enqueueCalls + consumeCalls + applyCalls) / N;
console.log(`one coordinator applies ${resultsPerS.toFixed(0)} results/s: with ${JOB_SECONDS} s jobs it keeps up with ${Math.floor(resultsPerS * JOB_SECONDS)} busy workers;`);
console.log(`at that rate Redis serves ${(redisPerJob * resultsPerS).toFixed(0)} commands/s for the farm (${redisPerJob.toFixed(1)} per job in all).`);

await queues.close();
workerConns.forEach((c) => c.disconnect());
admin.disconnect();
await stats.end();
await db.close();
await database.drop();
server.kill("SIGKILL");
process.exit(0);
