// Test helpers for whole-farm tests: a fresh database and queue prefix per
// test, the real CLI run as a child process, real worker processes.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@fuzzfarm/db/testing";
import { createDb, type Db } from "@fuzzfarm/db";
import { openQueues, type FarmQueues } from "@fuzzfarm/queue";

export const REPO = fileURLToPath(new URL("../../..", import.meta.url));
export const CLI = fileURLToPath(new URL("../src/main.ts", import.meta.url));
export const WORKER = fileURLToPath(new URL("../../worker/src/main.ts", import.meta.url));
/** The tests' Redis (scripts/test.mjs sets FUZZFARM_REDIS_URL, with a password where setup started Redis itself). */
export const REDIS_URL = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";
/** A file of apps/cli/test/fixtures. */
export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

export interface TestFarm {
  env: NodeJS.ProcessEnv;
  db: Db;
  queues: FarmQueues;
  prefix: string;
  databaseUrl: string;
  close(): Promise<void>;
}

export async function testFarm(extraEnv: NodeJS.ProcessEnv = {}): Promise<TestFarm> {
  const database = await createTestDatabase();
  const prefix = `fft-${randomBytes(4).toString("hex")}`;
  const db = createDb({ url: database.url });
  const jobKey = randomBytes(32).toString("base64url");
  const queues = openQueues({ url: REDIS_URL, prefix, jobKey });
  const env = {
    ...process.env,
    FUZZFARM_DATABASE_URL: database.url,
    FUZZFARM_REDIS_URL: REDIS_URL,
    FUZZFARM_QUEUE_PREFIX: prefix,
    FUZZFARM_SKIP_SELFTEST: "1",
    FUZZFARM_JOB_KEY: jobKey,
    ...extraEnv,
  };
  return {
    env,
    db,
    queues,
    prefix,
    databaseUrl: database.url,
    async close() {
      await queues.close().catch(() => {});
      await db.close().catch(() => {});
      // Drop the test's keys so Redis does not fill up across runs.
      const { Redis } = await import("ioredis");
      const r = new Redis(REDIS_URL);
      const keys = await r.keys(`${prefix}:*`);
      if (keys.length) await r.del(...keys);
      r.disconnect();
      await database.drop();
    },
  };
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<CliRun> {
  return startCli(args, env, timeoutMs).done;
}

export function startCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): { proc: ChildProcess; done: Promise<CliRun> } {
  const p = spawn(process.execPath, ["--import", "tsx", CLI, ...args], { env, cwd: REPO });
  const done = new Promise<CliRun>((resolve) => {
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    const t = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    p.on("exit", (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
  return { proc: p, done };
}

export function spawnWorker(env: NodeJS.ProcessEnv): ChildProcess & { log: string[] } {
  const p = spawn(process.execPath, ["--import", "tsx", WORKER], { env, stdio: ["ignore", "ignore", "pipe"] }) as ChildProcess & { log: string[] };
  p.log = [];
  p.stderr!.setEncoding("utf8");
  p.stderr!.on("data", (d: string) => p.log.push(...d.split("\n").filter(Boolean)));
  return p;
}

export async function waitUntil(cond: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export function killAndWait(p: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  return new Promise((resolve) => {
    if (p.exitCode !== null || p.signalCode !== null) return resolve();
    p.once("exit", () => resolve());
    p.kill(signal);
  });
}
