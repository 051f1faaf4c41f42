// The worker process's log: one JSON line per event on stderr (not a
// terminal here), with level, msg, name and the ids each event concerns
// (workerId always; jobId, campaignId, engine, kind for a job's events), and
// FUZZFARM_LOG_LEVEL as its level. A real worker process on real Redis.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { parseJob } from "@fuzzfarm/protocol";
import { enqueueJob, openQueues, signJobData } from "@fuzzfarm/queue";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const REDIS = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";

interface Event {
  level: number;
  msg: string;
  [k: string]: unknown;
}

function startWorker(env: NodeJS.ProcessEnv) {
  const dir = mkdtempSync(join(tmpdir(), "ff-worker-logs-"));
  const prefix = `ff-wlogs-${process.pid}-${randomBytes(3).toString("hex")}`;
  const jobKey = randomBytes(32).toString("base64url");
  const target = join(dir, "target.cjs");
  writeFileSync(target, "module.exports.fuzz = () => {};\n");
  const p = spawn(process.execPath, ["--import", "tsx", MAIN], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, FUZZFARM_REDIS_URL: REDIS, FUZZFARM_QUEUE_PREFIX: prefix, FUZZFARM_JOB_KEY: jobKey, FUZZFARM_ENGINES: "input", FUZZFARM_SKIP_SELFTEST: "1", FUZZFARM_SANDBOX: "none", FUZZFARM_DATA_DIR: dir, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const lines: string[] = [];
  let rest = "";
  p.stderr!.setEncoding("utf8").on("data", (d: string) => {
    const parts = (rest + d).split("\n");
    rest = parts.pop()!;
    lines.push(...parts.filter(Boolean));
  });
  const exited = new Promise<number | null>((r) => p.once("exit", (code) => r(code)));
  const queues = openQueues({ url: REDIS, prefix, jobKey });
  /** Every line as an event: a line that is not JSON fails the test. */
  const events = (): Event[] => lines.map((l) => JSON.parse(l) as Event);
  const waitFor = async (what: string, pred: (e: Event) => boolean, ms = 30_000): Promise<Event> => {
    for (const until = Date.now() + ms; Date.now() < until; await sleep(50)) {
      const e = events().find(pred);
      if (e) return e;
      if (p.exitCode !== null) break;
    }
    throw new Error(`no ${what} event; log:\n${lines.join("\n")}`);
  };
  return {
    p,
    lines,
    events,
    waitFor,
    queues,
    target,
    jobKey,
    exited,
    async stop() {
      if (p.exitCode === null) p.kill("SIGTERM");
      await exited;
      await queues.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A signed job the schema refuses: the worker logs the refusal (warn) and reports a bad-job result. */
async function enqueueMalformed(w: ReturnType<typeof startWorker>, jobId: string) {
  await w.queues.jobs.input.add("fuzz", signJobData({ jobId, campaignId: "c-logs", engine: "input", budget: { runs: "many" } }, w.jobKey) as never, { jobId });
}

test("worker process: JSON lines with level, msg and the ids of each event (ready, a job run, a job refused)", async () => {
  const w = startWorker({});
  try {
    const ready = await w.waitFor("ready", (e) => / ready: engines input/.test(e.msg));
    assert.equal(ready.level, 30);
    assert.equal(ready.name, "worker");
    assert.equal(ready.pid, w.p.pid);
    assert.match(String(ready.workerId), /^[^:]+:\d+:[0-9a-f]{6}$/);
    assert.deepEqual(ready.engines, ["input"]);
    assert.equal(ready.sandbox, "none");
    const workerId = ready.workerId;

    await enqueueJob(w.queues, parseJob({ jobId: "logs-ok", campaignId: "c-logs", engine: "input", kind: "fuzz", target: { name: "t", path: w.target, version: "v" }, seeds: [], budget: { runs: 20, seconds: 5 }, options: {} }));
    const done = await w.waitFor("job done", (e) => e.jobId === "logs-ok" && /^job logs-ok: \d+ execs, 0 findings$/.test(e.msg));
    assert.equal(done.level, 30);
    assert.deepEqual({ workerId: done.workerId, campaignId: done.campaignId, engine: done.engine, kind: done.kind }, { workerId, campaignId: "c-logs", engine: "input", kind: "fuzz" });
    assert.ok(typeof done.execs === "number" && done.execs > 0, `execs ${done.execs}`);
    assert.ok(!w.events().some((e) => e.jobId === "logs-ok" && e.level === 20), "job start is debug: not written at info");

    await enqueueMalformed(w, "logs-bad");
    const refused = await w.waitFor("job refused", (e) => e.jobId === "logs-bad");
    assert.equal(refused.level, 40);
    assert.match(refused.msg, /^rejected job logs-bad: FF_ERR_BAD_JOB: malformed job payload/);
    assert.deepEqual({ workerId: refused.workerId, campaignId: refused.campaignId, engine: refused.engine }, { workerId, campaignId: "c-logs", engine: "input" });
  } finally {
    await w.stop();
  }
  assert.ok(w.events().some((e) => e.msg === "worker stopped" && e.level === 30), w.lines.join("\n"));
});

test("FUZZFARM_LOG_LEVEL=warn: the worker writes warnings (a refused job) and no info line; debug adds job starts", async () => {
  const quiet = startWorker({ FUZZFARM_LOG_LEVEL: "warn" });
  try {
    await enqueueMalformed(quiet, "quiet-bad");
    const refused = await quiet.waitFor("job refused", (e) => e.jobId === "quiet-bad");
    assert.equal(refused.level, 40);
  } finally {
    await quiet.stop();
  }
  // ready, consuming and "worker stopped" were all info: none written
  assert.deepEqual(quiet.events().filter((e) => e.level < 40).map((e) => e.msg), []);

  const loud = startWorker({ FUZZFARM_LOG_LEVEL: "debug" });
  try {
    await enqueueJob(loud.queues, parseJob({ jobId: "debug-ok", campaignId: "c-logs", engine: "input", kind: "fuzz", target: { name: "t", path: loud.target, version: "v" }, seeds: [], budget: { runs: 5, seconds: 5 }, options: {} }));
    const started = await loud.waitFor("job started", (e) => e.jobId === "debug-ok" && e.level === 20);
    assert.equal(started.msg, "job debug-ok started");
    assert.equal(started.campaignId, "c-logs");
  } finally {
    await loud.stop();
  }
});

test("FUZZFARM_LOG_LEVEL that is no level: one config error line, exit 2", async () => {
  const w = startWorker({ FUZZFARM_LOG_LEVEL: "loud" });
  try {
    assert.equal(await w.exited, 2);
    assert.equal(w.lines.length, 1, w.lines.join("\n"));
    assert.match(w.lines[0]!, /^fuzzfarm worker: FF_ERR_CONFIG: config logLevel: /);
  } finally {
    await w.stop();
  }
});
