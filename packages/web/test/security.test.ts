// Trust boundaries of the dashboard, each against an attack that worked
// before it was closed: a session record forged in Redis, a huge body sent
// without a token, a DNS-rebinding Host, malformed heartbeats in Redis, a
// flood of live-event streams, open reads on a non-loopback bind, an audit
// identity taken from a header, and a writable bull-board. Real PostgreSQL,
// Redis and HTTP sockets.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { buildApp } from "../src/index";
import { startFarm, seedCampaign, runJob, sendBig, auth, ADMIN, REDIS_URL, WORKER, type Farm } from "./helpers";

let farm: Farm;
before(async () => {
  farm = await startFarm();
});
after(async () => {
  await farm.close();
});

async function aBucket() {
  const c = await seedCampaign(farm.db);
  await runJob(farm, c, { crashes: [{ message: "Error: sec", signature: `uncaught|sec-${randomBytes(3).toString("hex")}` }] });
  const items = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}` })).json().items as { id: string }[];
  return items[0]!.id;
}

test("a session record written into Redis by hand is not a login", async () => {
  const bucket = await aBucket();
  const id = randomBytes(24).toString("base64url");
  const csrf = randomBytes(24).toString("base64url");
  await farm.queues.connection.set(`${farm.prefix}:web:session:${id}`, JSON.stringify({ id, csrf, createdAt: Date.now() }), "EX", 60);
  for (const cookie of [`ff_session=${id}`, `ff_session=${id}.${randomBytes(32).toString("base64url")}`]) {
    const r = await farm.app.inject({ method: "POST", url: `/api/buckets/${bucket}/notes`, headers: { cookie, "x-csrf-token": csrf }, payload: { note: "forged" } });
    assert.equal(r.statusCode, 401, r.body);
    const board = await farm.app.inject({ url: "/admin/queues/api/queues", headers: { cookie } });
    assert.equal(board.statusCode, 401, board.body);
  }
  // A real login still works, and its record cannot be re-pointed: a forged
  // record under the real cookie's id (a new CSRF token) is refused too.
  const login = await farm.app.inject({ method: "POST", url: "/login", payload: { token: ADMIN } });
  const cookie = String(login.headers["set-cookie"]).split(";")[0]!;
  const realCsrf = login.json().csrfToken as string;
  let r = await farm.app.inject({ method: "POST", url: `/api/buckets/${bucket}/notes`, headers: { cookie, "x-csrf-token": realCsrf }, payload: { note: "real" } });
  assert.equal(r.statusCode, 200, r.body);
  const realId = cookie.split("=")[1]!.split(".")[0]!;
  await farm.queues.connection.set(`${farm.prefix}:web:session:${realId}`, JSON.stringify({ id: realId, csrf, createdAt: Date.now() }), "EX", 60);
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${bucket}/notes`, headers: { cookie, "x-csrf-token": csrf }, payload: { note: "re-pointed" } });
  assert.equal(r.statusCode, 401, r.body);
});

test("the audit trail records the authenticated identity, not a header", async () => {
  const bucket = await aBucket();
  const r = await farm.app.inject({ method: "POST", url: `/api/buckets/${bucket}/notes`, headers: { ...auth, "x-fuzzfarm-actor": "mallory" }, payload: { note: "n" } });
  assert.equal(r.statusCode, 200, r.body);
  const events = (await farm.app.inject({ url: `/api/buckets/${bucket}` })).json().events as { action: string; actor: string }[];
  assert.deepEqual(events.filter((e) => e.action === "note").map((e) => e.actor), ["api:admin-token"]);
});

test("a 60 MB body without a token is refused before it is read", async () => {
  await farm.app.listen({ host: "127.0.0.1", port: 0 });
  const port = (farm.app.server.address() as AddressInfo).port;
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const r = await sendBig(port, "/api/results", 60);
  clearInterval(sample);
  assert.equal(r.status, 401);
  assert.ok(r.sentBytes < 60 * 1024 * 1024, `the answer came before the whole body was sent (${r.sentBytes} bytes sent)`);
  // Buffering and parsing 60 MB costs hundreds of MB; refusing it costs sockets' buffers.
  assert.ok(peak - rss0 < 40 * 1024 * 1024, `memory grew by ${((peak - rss0) / 1048576).toFixed(1)} MiB`);
  // With the worker token the route's own 64 MiB limit still holds; a too-large body is refused with its code.
  const tooBig = await sendBig(port, "/api/results", 65, { authorization: `Bearer ${WORKER}` });
  assert.ok(tooBig.status === 413 || tooBig.status === "EPIPE" || tooBig.status === "ECONNRESET", String(tooBig.status));
});

test("a request naming another Host is refused (DNS rebinding); configured names are served", async () => {
  const evil = await farm.app.inject({ url: "/api/overview", headers: { host: "attacker.example" } });
  assert.equal(evil.statusCode, 421);
  assert.equal(evil.json().error.code, "FF_ERR_MISDIRECTED");
  const evilPort = await farm.app.inject({ url: "/", headers: { host: "attacker.example:8377" } });
  assert.equal(evilPort.statusCode, 421);
  for (const host of ["localhost:8377", "127.0.0.1", "[::1]:8377"]) {
    const ok = await farm.app.inject({ url: "/api/overview", headers: { host } });
    assert.equal(ok.statusCode, 200, `${host}: ${ok.body}`);
  }
  const app = await buildApp({ db: farm.db, queues: farm.queues, redisUrl: REDIS_URL, prefix: farm.prefix, adminToken: ADMIN, dataDir: farm.dataDir, allowedHosts: ["farm.internal:8377"] });
  try {
    assert.equal((await app.inject({ url: "/api/overview", headers: { host: "farm.internal:8377" } })).statusCode, 200);
    assert.equal((await app.inject({ url: "/api/overview", headers: { host: "farm.internal.attacker.example" } })).statusCode, 421);
  } finally {
    await app.close();
  }
});

test("malformed heartbeats in Redis are ignored and dropped; the pages still answer", async () => {
  const key = `${farm.prefix}:workers`;
  const good = { id: "w-good", host: "box", pid: 7, version: "0.1.0", engines: ["node"], currentJobId: null, execsPerSec: 3, jobsDone: 1, at: Date.now() };
  await farm.queues.connection.hset(key, {
    "w-good": JSON.stringify(good),
    "w-text": "not json",
    "w-null": "null",
    "w-shape": JSON.stringify({ id: "w-shape", at: Date.now(), engines: "node" }),
    "w-other": JSON.stringify({ ...good, id: "w-good" }),
  });
  for (const url of ["/", "/api/overview", "/api/workers"]) {
    const r = await farm.app.inject({ url });
    assert.equal(r.statusCode, 200, `${url}: ${r.body.slice(0, 200)}`);
  }
  const ids = (await farm.app.inject({ url: "/api/workers" })).json().items.map((w: { id: string }) => w.id);
  assert.ok(ids.includes("w-good"));
  assert.deepEqual(Object.keys(await farm.queues.connection.hgetall(key)), ["w-good"]);
});

/** Open an SSE stream; resolves with its status (the socket stays open when it is 200). */
function openStream(port: number) {
  return new Promise<{ status: number; close(): void }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/api/events", headers: { accept: "text/event-stream" } }, (res) => {
      res.on("data", () => {});
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on("error", reject);
    req.end();
  });
}

test("live-event streams are capped per client and in total", async () => {
  const app = await buildApp({ db: farm.db, queues: farm.queues, redisUrl: REDIS_URL, prefix: farm.prefix, adminToken: ADMIN, dataDir: farm.dataDir, sseMaxPerClient: 3, sseMaxTotal: 5 });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const open: { status: number; close(): void }[] = [];
  try {
    for (let i = 0; i < 3; i++) open.push(await openStream(port));
    assert.deepEqual(open.map((s) => s.status), [200, 200, 200]);
    const refused = await openStream(port);
    assert.equal(refused.status, 429);
    refused.close();
    open.pop()!.close();
    await new Promise((r) => setTimeout(r, 100));
    const again = await openStream(port);
    assert.equal(again.status, 200, "a closed stream frees its slot");
    open.push(again);
  } finally {
    for (const s of open) s.close();
    await app.close();
  }
});

test("with requireAuthForReads every read needs the token or a login; login, assets and health stay open", async () => {
  const app = await buildApp({ db: farm.db, queues: farm.queues, redisUrl: REDIS_URL, prefix: farm.prefix, adminToken: ADMIN, workerToken: WORKER, dataDir: farm.dataDir, requireAuthForReads: true });
  try {
    for (const url of ["/api/overview", "/api/buckets", "/metrics", "/api/events", "/api/workers"]) {
      const r = await app.inject({ url });
      assert.equal(r.statusCode, 401, `${url} answered ${r.statusCode}`);
      assert.equal((await app.inject({ url, headers: { authorization: `Bearer ${WORKER}` } })).statusCode, 403, `${url} with the worker token`);
    }
    const page = await app.inject({ url: "/buckets", headers: { accept: "text/html" } });
    assert.equal(page.statusCode, 303);
    assert.equal(page.headers.location, "/login?next=%2Fbuckets");
    for (const url of ["/login", "/healthz", "/assets/app.css"]) assert.equal((await app.inject({ url })).statusCode, 200, url);
    assert.equal((await app.inject({ url: "/api/overview", headers: auth })).statusCode, 200);
    const login = await app.inject({ method: "POST", url: "/login", payload: { token: ADMIN } });
    const cookie = String(login.headers["set-cookie"]).split(";")[0]!;
    assert.equal((await app.inject({ url: "/api/buckets", headers: { cookie } })).statusCode, 200);
  } finally {
    await app.close();
  }
  // The default (loopback) dashboard keeps reads open.
  assert.equal((await farm.app.inject({ url: "/api/buckets" })).statusCode, 200);
});

test("bull-board is read-only unless writes are enabled", async () => {
  const queue = farm.queues.all()[0]!.name;
  const add = (app: typeof farm.app) =>
    app.inject({ method: "POST", url: `/admin/queues/api/queues/${encodeURIComponent(queue)}/add`, headers: { ...auth, origin: "http://localhost:80", host: "localhost:80" }, payload: { name: "x", data: { optimizerCmd: "id" } } });
  const ro = await add(farm.app);
  assert.equal(ro.statusCode, 405, ro.body);
  assert.equal(await farm.queues.all()[0]!.count(), 0);
  const app = await buildApp({ db: farm.db, queues: farm.queues, redisUrl: REDIS_URL, prefix: farm.prefix, adminToken: ADMIN, dataDir: farm.dataDir, queueBoardWritable: true });
  try {
    const rw = await add(app);
    assert.equal(rw.statusCode, 200, rw.body);
  } finally {
    await farm.queues.all()[0]!.obliterate({ force: true });
    await app.close();
  }
});
