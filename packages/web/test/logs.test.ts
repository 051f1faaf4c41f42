// The dashboard logs through the app's pino logger (buildApp's `logger`):
// requests that complete are debug (a normal run at info writes nothing per
// request), an unexpected error is one error event with the request's reqId,
// URL and the error. A real app on a real port, real PostgreSQL and Redis.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { createTestDb } from "@fuzzfarm/db/testing";
import { openQueues } from "@fuzzfarm/queue";
import { buildApp } from "../src/index";
import { ADMIN, REDIS_URL } from "./helpers";

interface Event {
  level: number;
  msg: string;
  [k: string]: unknown;
}

async function serve(level: pino.LevelWithSilent) {
  const db = await createTestDb();
  const prefix = `fftest-weblog-${randomBytes(5).toString("hex")}`;
  const queues = openQueues({ url: REDIS_URL, prefix });
  const dataDir = mkdtempSync(join(tmpdir(), "ff-weblog-"));
  const events: Event[] = [];
  const logger = pino({ level }, { write: (line: string) => void events.push(JSON.parse(line)) });
  const app = await buildApp({ db, queues, redisUrl: REDIS_URL, prefix, adminToken: ADMIN, dataDir, logger });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    url,
    db,
    events,
    async close() {
      await app.close();
      await queues.close();
      await db.close().catch(() => {}); // a test closed it already
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

test("dashboard at info: no line per request; an unexpected error is one error event with reqId, url and the error", async () => {
  const s = await serve("info");
  try {
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${s.url}/api/campaigns`)).status, 200);
    assert.equal((await fetch(`${s.url}/no-such-page`)).status, 404);
    // fastify's one line at start, and nothing at info or below for requests that went well
    assert.deepEqual(s.events.filter((e) => e.level < 40).map((e) => e.msg), [`Server listening at ${s.url}`]);
    // the database goes away under the app: the next read fails unexpectedly
    await s.db.close();
    const r = await fetch(`${s.url}/api/campaigns`);
    assert.ok(r.status >= 500, `status ${r.status}`);
    const errors = s.events.filter((e) => e.level >= 50);
    assert.ok(errors.length >= 1, JSON.stringify(s.events));
    const e = errors[0]!;
    assert.equal(typeof e.reqId, "string");
    assert.ok((e.err as { message?: string })?.message, JSON.stringify(e));
    const done = s.events.find((x) => x.msg === "request completed");
    assert.ok(done && done.level >= 40 && (done.res as { statusCode: number }).statusCode === r.status && done.url === "/api/campaigns" && done.reqId === e.reqId, JSON.stringify(s.events));
  } finally {
    await s.close();
  }
});

test("dashboard at debug: each request completes with a debug event (reqId, method, url, statusCode, responseTime)", async () => {
  const s = await serve("debug");
  try {
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
    const done = s.events.find((e) => e.msg === "request completed" && e.url === "/healthz");
    assert.ok(done, JSON.stringify(s.events));
    assert.equal(done.level, 20);
    assert.equal(done.method, "GET");
    assert.equal((done.res as { statusCode: number }).statusCode, 200);
    assert.equal(typeof done.responseTime, "number");
    const incoming = s.events.find((e) => e.msg === "incoming request" && e.reqId === done.reqId);
    assert.equal(incoming?.level, 20);
  } finally {
    await s.close();
  }
});
