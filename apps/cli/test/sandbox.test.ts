// The sandbox of target processes, end to end: a real worker process (with
// the farm's Redis URL, database URL, job key and admin token in its
// environment) runs signed node and input jobs whose targets try to reach
// the farm (fixtures/sandbox/probe.cjs). Under FUZZFARM_SANDBOX=net on this
// Linux machine they get a network namespace with only loopback: Redis and
// PostgreSQL on 127.0.0.1 refuse, the host's LAN address is unreachable, and
// the worker's /proc environ is closed to them. With FUZZFARM_SANDBOX=none
// the same targets reach Redis and PostgreSQL and read the worker's environ
// (so these checks can fail). Either way the targets' own environment holds
// none of the farm's secrets and their cwd is a directory of their job.
// Under FUZZFARM_SANDBOX=fs (what auto picks here) a target (fixtures/sandbox/
// fs-target.cjs) also finds no job key file, no data directory and no
// /var/run/postgresql in its view, the filesystem read-only, only its own
// namespace's processes, and itself not root.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { enqueueJob, readHeartbeats } from "@fuzzfarm/queue";
import { JobResult, parseJob } from "@fuzzfarm/protocol";
import { killAndWait, spawnWorker, testFarm, waitUntil } from "./helpers";

const FIXTURES = fileURLToPath(new URL("./fixtures/sandbox/", import.meta.url));
const ADMIN_TOKEN = "admin-token-sandbox-0123456789";
const lan = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

interface Report {
  engine: string;
  cwd: string;
  env: Record<string, string>;
  parentEnviron: string[] | string;
  interfaces: string[];
  redis: string;
  postgres: string;
  lanRedis: string | null;
}

async function runTargets(mode: "net" | "none") {
  const farm = await testFarm({ FUZZFARM_ADMIN_TOKEN: ADMIN_TOKEN });
  const reports = mkdtempSync(join(tmpdir(), "ff-sandbox-reports-"));
  const w = spawnWorker({
    ...farm.env,
    FUZZFARM_SANDBOX: mode,
    FUZZFARM_ENGINES: "input,node",
    FF_SANDBOX_REPORTS: reports,
    ...(lan ? { FF_SANDBOX_LAN: lan } : {}),
  });
  try {
    const job = (engine: "node" | "input", file: string, options: Record<string, unknown>) =>
      parseJob({ jobId: `${engine}-${mode}`, campaignId: "c-sandbox", engine, target: { name: file, path: join(FIXTURES, file) }, budget: { runs: 3, seconds: 2 }, options });
    await enqueueJob(farm.queues, job("node", "node-target.cjs", { timeoutMs: 8000 }));
    await enqueueJob(farm.queues, job("input", "input-target.cjs", {}));
    const read = () => readdirSync(reports).map((f) => JSON.parse(readFileSync(join(reports, f), "utf8")) as Report);
    await waitUntil(() => new Set(read().map((r) => r.engine)).size === 2, 90_000, `reports of both engines (worker log: ${w.log.slice(-5).join(" | ")})`);
    const beats = await readHeartbeats(farm.queues.connection, farm.prefix);
    return { reports: read(), beats, log: [...w.log], jobKey: farm.env.FUZZFARM_JOB_KEY!, workerPid: w.pid! };
  } finally {
    await killAndWait(w);
    rmSync(reports, { recursive: true, force: true });
    await farm.close();
  }
}

/** Checks that hold in both modes: no secret in the target's environment, its cwd a job directory of its own. */
function commonChecks(reports: Report[], jobKey: string) {
  for (const r of reports) {
    const secrets = Object.keys(r.env).filter((n) => /^(FUZZFARM_(REDIS_URL|DATABASE_URL|JOB_KEY|ADMIN_TOKEN|WORKER_TOKEN)|REDIS_URL|DATABASE_URL)(_FILE)?$/.test(n));
    assert.deepEqual(secrets, [], `${r.engine}: secret names in the target's environment`);
    const values = JSON.stringify(r.env);
    for (const s of [jobKey, ADMIN_TOKEN, "redis://", "postgresql://"]) assert.ok(!values.includes(s), `${r.engine}: ${s.slice(0, 12)}... in the target's environment`);
    assert.equal(basename(r.cwd), "target-cwd", `${r.engine}: cwd ${r.cwd}`);
    assert.match(basename(dirname(r.cwd)), /^ffjob-/, `${r.engine}: cwd ${r.cwd} is in the job's directory`);
  }
}

test("sandbox net (Linux): targets see only their own loopback; Redis and PostgreSQL refuse, the LAN is unreachable, the worker's environ is closed", { skip: process.platform !== "linux" && "network namespaces are Linux only" }, async () => {
  const { reports, beats, log, jobKey } = await runTargets("net");
  assert.ok(log.some((l) => /ready: engines .*; sandbox net \(own network namespace/.test(l)), log.join("\n"));
  assert.deepEqual(beats.map((b) => b.sandbox), ["net"], "the heartbeat advertises the sandbox");
  commonChecks(reports, jobKey);
  for (const r of reports) {
    assert.deepEqual(r.interfaces, ["lo"], `${r.engine}: interfaces`);
    assert.equal(r.redis, "ECONNREFUSED", `${r.engine}: Redis on 127.0.0.1`);
    assert.equal(r.postgres, "ECONNREFUSED", `${r.engine}: PostgreSQL on 127.0.0.1`);
    if (lan) assert.equal(r.lanRedis, "ENETUNREACH", `${r.engine}: Redis on the host's address ${lan}`);
    assert.equal(r.parentEnviron, "EACCES", `${r.engine}: the worker's /proc environ`);
  }
});

test("sandbox none: the same targets reach Redis and PostgreSQL and read the worker's environ (what the sandbox takes away)", async () => {
  const { reports, beats, log, jobKey } = await runTargets("none");
  assert.ok(log.some((l) => /ready: engines .*; sandbox none \(configured\)/.test(l)), log.join("\n"));
  assert.deepEqual(beats.map((b) => b.sandbox), ["none"]);
  commonChecks(reports, jobKey);
  for (const r of reports) {
    assert.ok(r.interfaces.length > 1, `${r.engine}: interfaces ${r.interfaces}`);
    assert.equal(r.redis, "connected", `${r.engine}: Redis`);
    assert.equal(r.postgres, "connected", `${r.engine}: PostgreSQL`);
    assert.ok(Array.isArray(r.parentEnviron) && r.parentEnviron.includes(`FUZZFARM_JOB_KEY=${jobKey}`), `${r.engine}: the worker's environ as started, key included`);
  }
});

test("sandbox fs (Linux): a worker process's target cannot read the job key file or the data directory, write outside its directory, see the worker's processes, reach Redis or PostgreSQL's Unix socket", { skip: process.platform !== "linux" && "mount namespaces are Linux only" }, async () => {
  // the worker's data directory outside /tmp (which the fs sandbox replaces anyway), its job key in a file there
  const dataDir = mkdtempSync("/var/tmp/ff-fs-farm-");
  const keyFile = join(dataDir, "job-key");
  const farm = await testFarm();
  writeFileSync(keyFile, farm.env.FUZZFARM_JOB_KEY!, { mode: 0o600 });
  mkdirSync(join(dataDir, "redis"));
  const { FUZZFARM_JOB_KEY: _key, ...env } = farm.env;
  const w = spawnWorker({ ...env, FUZZFARM_SANDBOX: "fs", FUZZFARM_ENGINES: "node", FUZZFARM_DATA_DIR: dataDir, FUZZFARM_JOB_KEY_FILE: keyFile });
  try {
    await waitUntil(() => w.log.some((l) => /ready:/.test(l)), 60_000, `worker ready (log: ${w.log.slice(-5).join(" | ")})`);
    assert.ok(w.log.some((l) => /ready: engines node; sandbox fs \(bwrap: uid 65534 without capabilities, seccomp/.test(l)), w.log.join("\n"));
    assert.deepEqual((await readHeartbeats(farm.queues.connection, farm.prefix)).map((b) => b.sandbox), ["fs"]);
    const jobId = "node-fs";
    await enqueueJob(farm.queues, parseJob({ jobId, campaignId: "c-sandbox", engine: "node", target: { name: "fs-target", path: join(FIXTURES, "fs-target.cjs") }, budget: { runs: 2, seconds: 5 }, options: { timeoutMs: 8000, args: [keyFile, dataDir] } }));
    let result: JobResult | undefined;
    await waitUntil(async () => {
      const j = await farm.queues.results.getJob(`r-${jobId}`);
      if (j) result = JobResult.parse(j.data);
      return !!result;
    }, 90_000, `the job's result (worker log: ${w.log.slice(-5).join(" | ")})`);
    const text = JSON.stringify(result);
    assert.ok(!text.includes(farm.env.FUZZFARM_JOB_KEY!), "the job key is nowhere in the result");
    const m = /FFSEEN (\{[^}]*\})/.exec(text);
    assert.ok(m, `the target's report is in its finding: ${text.slice(0, 500)}`);
    const seen = JSON.parse(JSON.parse(`"${m[1]}"`)) as { pid: number; uid: number; procs: string[]; key: string; dataDir: unknown; writeData: string; writeRoot: string; writeCwd: string; redis: string; pgSocket: string };
    assert.equal(seen.key, "ENOENT", `job key file: ${seen.key}`);
    assert.equal(seen.dataDir, "ENOENT", "the data directory is not in the target's view");
    assert.equal(seen.writeData, "ENOENT");
    assert.equal(seen.writeRoot, "EROFS");
    assert.equal(seen.pgSocket, "ENOENT", "PostgreSQL's Unix socket under /var/run/postgresql");
    assert.ok(seen.uid !== 0, `uid ${seen.uid}`);
    assert.equal(seen.writeCwd, "ok");
    assert.ok(seen.pid <= 3 && seen.procs.length <= 4 && !seen.procs.includes(String(w.pid)), `pid ${seen.pid}, /proc lists ${seen.procs.join(",")}`);
    assert.equal(seen.redis, "ECONNREFUSED");
    assert.equal(existsSync(join(dataDir, "planted")), false);
    assert.equal(existsSync("/ff-planted"), false);
  } finally {
    await killAndWait(w);
    await farm.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
