// The coordinator process's log: one JSON line per event on stderr (not a
// terminal here) from the coordinator and its dashboard (fastify on the same
// pino logger, component "web"), at FUZZFARM_LOG_LEVEL. A real process on
// real PostgreSQL (a fresh database, migrated at start) and Redis.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestDatabase } from "@fuzzfarm/db/testing";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const REPO = fileURLToPath(new URL("../../..", import.meta.url));
const REDIS_URL = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";

interface Event {
  level: number;
  msg: string;
  [k: string]: unknown;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Runs a coordinator process until `body` returns; every stderr line must be a JSON event. */
async function withCoordinator(level: string, body: (url: string, events: () => Event[]) => Promise<void>): Promise<Event[]> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), "ff-coord-logs-"));
  const port = await freePort();
  const p = spawn(process.execPath, ["--import", "tsx", MAIN], {
    cwd: REPO,
    env: { ...process.env, FUZZFARM_DATABASE_URL: database.url, FUZZFARM_REDIS_URL: REDIS_URL, FUZZFARM_QUEUE_PREFIX: `ff-clogs-${randomBytes(4).toString("hex")}`, FUZZFARM_JOB_KEY: randomBytes(32).toString("base64url"), FUZZFARM_ADMIN_TOKEN: randomBytes(18).toString("base64url"), FUZZFARM_DATA_DIR: dataDir, FUZZFARM_HTTP_PORT: String(port), FUZZFARM_LOG_LEVEL: level },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let text = "";
  p.stderr!.setEncoding("utf8").on("data", (d: string) => (text += d));
  const events = () => text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Event);
  const exited = new Promise((r) => p.once("exit", r));
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let up = false; !up; await sleep(100)) {
      if (p.exitCode !== null) throw new Error(`coordinator exited: ${text}`);
      up = (await fetch(`${url}/healthz`).catch(() => null))?.status === 200;
    }
    await body(url, events);
  } finally {
    p.kill("SIGTERM");
    await exited;
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return events();
}

test("coordinator process: JSON lines; the dashboard's requests at debug with reqId and component web", async () => {
  const all = await withCoordinator("debug", async (url, events) => {
    const listening = events().find((e) => /^dashboard on /.test(e.msg));
    assert.ok(listening, JSON.stringify(events()));
    assert.equal(listening.level, 30);
    assert.equal(listening.name, "coordinator");
    assert.equal(listening.url, url);
    assert.equal((await fetch(`${url}/api/campaigns`)).status, 200);
    for (let i = 0; i < 50 && !events().some((e) => e.msg === "request completed" && e.url === "/api/campaigns"); i++) await sleep(20);
    const done = events().find((e) => e.msg === "request completed" && e.url === "/api/campaigns");
    assert.ok(done, JSON.stringify(events()));
    assert.deepEqual([done.level, done.name, done.component, (done.res as { statusCode: number }).statusCode], [20, "coordinator", "web", 200]);
    assert.equal(typeof done.reqId, "string");
  });
  assert.ok(all.some((e) => e.msg === "stopping" && e.level === 30));
});

test("FUZZFARM_LOG_LEVEL=warn: a coordinator that starts, serves and stops normally writes no line", async () => {
  const all = await withCoordinator("warn", async (url) => {
    assert.equal((await fetch(`${url}/api/campaigns`)).status, 200);
  });
  assert.deepEqual(all.map((e) => `${e.level} ${e.msg}`), []);
});
