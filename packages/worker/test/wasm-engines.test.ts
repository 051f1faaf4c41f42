// Engine binaries named in the worker's own configuration, through a real worker, real Redis and signed
// jobs: command engines configured on the worker (this repo's runner under this Node, and a "liar" that
// relays the same runner but corrupts every result) are advertised in the heartbeat; a job naming one runs
// it and its results are compared with the baseline as usual (the liar is an `engine@liar` finding); a job
// naming an engine the worker does not have is refused with FF_ERR_BAD_JOB, not retried, and starts no
// process at all. Every target process of the worker goes through a recording sandbox wrapper, so a
// process started for a refused job would show up in its log.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { JobResult, type JobPayload } from "@fuzzfarm/protocol";
import { enqueueJob, openQueues, readHeartbeats, signJobData, type FarmQueues } from "@fuzzfarm/queue";
import { RUNNER_PATH } from "@fuzzfarm/engine-wasm";
import { loadEngines, NET_SANDBOX_PREFIX, probeNetSandbox, startWorker } from "../src/index";

const REDIS = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";
const KEY = randomBytes(32).toString("base64url");
const prefix = `ff-wasm-engines-${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), "ff-wasm-engines-"));
const log = join(dir, "processes.log");
const liar = join(dir, "liar.mjs");
// Relays the runner protocol to the real runner, but every generated result it reports is off by a digit.
writeFileSync(
  liar,
  `import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
const child = spawn(process.execPath, [process.argv[2]], { stdio: ["pipe", "pipe", "inherit"] });
process.stdin.pipe(child.stdin);
createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
  let m = null;
  try { m = JSON.parse(line); } catch {}
  if (m?.type === "ran") for (const r of m.results) if (typeof r.outcome === "string") r.outcome += "7";
  process.stdout.write((m ? JSON.stringify(m) : line) + "\\n");
});
child.on("exit", (code, signal) => process.exit(signal ? 1 : code ?? 0));
`,
);

const job = (id: string, engines: string[]): JobPayload =>
  ({ jobId: id, campaignId: "c-wasm-engines", engine: "wasm", kind: "fuzz", target: { name: "t", path: "small", version: "v" }, budget: { runs: 12, seconds: 20 }, seeds: [], options: { strategy: "token", runsPerProgram: 2, engines } }) as unknown as JobPayload;

async function resultOf(q: FarmQueues, jobId: string): Promise<JobResult> {
  for (let i = 0; i < 600; i++) {
    const r = await q.results.getJob(`r-${jobId}`);
    if (r) return JobResult.parse(r.data);
    await sleep(100);
  }
  throw new Error(`no result for ${jobId}`);
}

const lines = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []);

test("a worker runs the command engines its configuration names, and refuses any other engine name before starting anything", { skip: process.platform !== "linux" && "the recording wrapper needs the Linux sandbox" }, async (t) => {
  if (await probeNetSandbox()) return t.skip("the net sandbox does not work here");
  const { engines, missing } = await loadEngines(["wasm"], {
    wasm: { commands: [{ name: "mine", command: [process.execPath, "--no-liftoff", RUNNER_PATH] }, { name: "liar", command: [process.execPath, liar, RUNNER_PATH] }] },
  });
  assert.deepEqual(missing, []);
  const recording = [...NET_SANDBOX_PREFIX, "/bin/sh", "-c", `echo "$*" >> '${log}' && exec "$@"`, "rec"];
  const logs: string[] = [];
  // No start-up probe: it runs the configured command engines and would (rightly) leave the wasm engine out
  // because of the liar (test/offered-engines.test.ts in engine-wasm covers the probe).
  const w = await startWorker({ redisUrl: REDIS, jobKey: KEY, prefix, engines, skipSelfTest: true, sandbox: "net", sandboxProbe: { prefix: recording }, heartbeatMs: 300, log: (l) => logs.push(l) });
  const q = openQueues({ url: REDIS, prefix, jobKey: KEY });
  try {
    assert.equal(w.sandbox, "net");
    assert.ok(logs.some((l) => /ready: engines wasm; wasm offers default, liftoff, turbofan, .*mine, liar; sandbox net/.test(l)), logs.join("\n"));
    const hb = (await readHeartbeats(q.connection, prefix)).find((h) => h.id === w.id);
    assert.ok(hb?.capabilities?.wasm, JSON.stringify(hb));
    for (const id of ["default", "liftoff", "deno:liftoff", "bun:jit", "mine", "liar"]) assert.ok(hb.capabilities.wasm.includes(id), `heartbeat offers ${id}`);

    // Refused: names the worker does not have, a command line, a path. No process starts, no retry. A coordinator
    // routes such jobs to queues only capable workers consume (routing.test.ts); these are put on the worker's own
    // wasm queue, signed, as a stale or hand-made route would, to check the worker's own refusal.
    const before = lines();
    for (const [i, engines] of [["other"], ["mine", "other"], [`mine=/bin/sh -c "touch ${join(dir, "pwned")}"`], [RUNNER_PATH]].entries()) {
      const id = `refused-${process.pid}-${i}`;
      await q.jobs.wasm.add("fuzz", signJobData(job(id, engines), KEY) as JobPayload, { jobId: id, attempts: 3 });
      const r = await resultOf(q, id);
      assert.equal(r.error?.kind, "bad-job", JSON.stringify(r.error));
      assert.match(r.error!.message, /^FF_ERR_BAD_JOB: unknown engine configuration '.+' on this worker; it offers: default, liftoff, turbofan, .*\bmine, liar \(/);
      assert.equal(r.execs, 0);
      const queued = (await q.jobs.wasm.getJob(id))!;
      for (let k = 0; k < 50 && !(await queued.isFailed()); k++) await sleep(100);
      assert.equal(await q.jobs.wasm.getJobState(id), "failed");
      assert.equal((await q.jobs.wasm.getJob(id))!.attemptsMade, 1, "refused once, not retried");
    }
    assert.deepEqual(lines(), before, "no target process was started for a refused job");
    assert.equal(existsSync(join(dir, "pwned")), false);

    // Named and configured: runs on that command engine; its results agree with the baseline.
    const ok = `mine-${process.pid}`;
    await enqueueJob(q, job(ok, ["mine"]));
    const r = await resultOf(q, ok);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(r.findings, []);
    assert.ok(r.strategyYield["engine:mine"]!.execs >= 2, JSON.stringify(r.strategyYield));
    assert.ok(lines().some((l) => l.endsWith(`${process.execPath} --no-liftoff ${RUNNER_PATH}`)), `the configured argv ran under the sandbox:\n${lines().join("\n")}`);

    // The cross-engine comparison is the usual one: an engine that reports wrong results is a finding naming it.
    const bad = `liar-${process.pid}`;
    await enqueueJob(q, job(bad, ["liar"]));
    const l = await resultOf(q, bad);
    assert.equal(l.error, undefined, JSON.stringify(l.error));
    assert.ok(l.findings.length > 0, "the liar was caught");
    for (const f of l.findings) {
      assert.equal(f.kind === "oracle" && f.oracle, "engine@liar");
      assert.match(f.message, /^engine liar \(unknown\) disagrees: got \S+7, expected /);
    }
  } finally {
    await w.stop();
    await q.close();
  }
});

test.after(async () => {
  rmSync(dir, { recursive: true, force: true });
  const { connect } = await import("@fuzzfarm/queue");
  const redis = connect(REDIS);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});
