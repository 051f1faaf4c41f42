// The CI API (/api/ci/*) that `fuzzfarm ci --farm` drives: who may call it
// (CI or admin bearer token, refused in onRequest before a body is read),
// which targets it accepts (absolute, under the farm's target roots with
// symlinks resolved, present on the farm), and what it answers (status,
// buckets of the target with their reproducer). Real PostgreSQL and Redis;
// the campaigns it starts are real rows.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { createCampaign, upsertTarget } from "@fuzzfarm/db";
import { buildApp, type CiCampaignRequest } from "../src/index";
import { startFarm, runJob, ADMIN, REDIS_URL, WORKER, type Farm } from "./helpers";

const CI = "ci-token-0123456789abcdef";
let farm: Farm;
let app: FastifyInstance;
let roots: string;
let elsewhere: string;
const started: CiCampaignRequest[] = [];

before(async () => {
  farm = await startFarm();
  roots = mkdtempSync(join(tmpdir(), "ff-ci-roots-"));
  elsewhere = mkdtempSync(join(tmpdir(), "ff-ci-elsewhere-"));
  writeFileSync(join(roots, "t.js"), "export function fuzz() {}\n");
  writeFileSync(join(elsewhere, "t.js"), "export function fuzz() {}\n");
  symlinkSync(join(elsewhere, "t.js"), join(roots, "link.js"));
  app = await buildApp({
    db: farm.db, queues: farm.queues, redisUrl: REDIS_URL, prefix: farm.prefix, adminToken: ADMIN, workerToken: WORKER, dataDir: farm.dataDir, ciToken: CI,
    ci: {
      targetRoots: [roots],
      maxSeconds: 600,
      async startCampaign(c) {
        started.push(c);
        const t = await upsertTarget(farm.db, { name: c.target.name, engine: c.engine, path: c.target.path, version: c.target.version });
        return createCampaign(farm.db, { targetId: t.id, engine: c.engine, config: { engine: c.engine, options: c.options, jobSeconds: c.jobSeconds ?? 5 } as never, deadline: new Date(Date.now() + c.seconds * 1000) });
      },
    },
  });
});
after(async () => {
  await app.close();
  await farm.close();
  rmSync(roots, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const start = (headers: Record<string, string>, payload: unknown) =>
  app.inject({ method: "POST", url: "/api/ci/campaigns", headers: { "content-type": "application/json", ...headers }, payload: typeof payload === "string" ? payload : JSON.stringify(payload) });
const body = (path: string, extra: object = {}) => ({ target: { path }, engine: "input", seconds: 30, jobSeconds: 2, ...extra });

test("no token, a wrong one or the worker token: refused before the body is read, nothing started", async () => {
  // A body that is not even JSON: the answer is about the credentials, not the body.
  for (const [headers, status, code] of [[{}, 401, "FF_ERR_UNAUTHORIZED"], [bearer("wrong-token-0123456789"), 401, "FF_ERR_UNAUTHORIZED"], [bearer(WORKER), 403, "FF_ERR_FORBIDDEN"]] as const) {
    const r = await start(headers, "{not json");
    assert.equal(r.statusCode, status, r.body);
    assert.equal(r.json().error.code, code);
    const g = await app.inject({ url: "/api/ci/campaigns/anything", headers });
    assert.equal(g.statusCode, status);
  }
  assert.equal(started.length, 0);
});

test("the CI token opens the CI API only", async () => {
  assert.equal((await app.inject({ method: "POST", url: "/api/buckets/b_x/notes", headers: bearer(CI), payload: { note: "n" } })).statusCode, 403);
  assert.equal((await app.inject({ url: "/admin/queues/api/queues", headers: bearer(CI) })).statusCode, 403);
});

test("targets: absolute, under the roots (symlinks resolved), present on the farm; else one coded error and nothing started", async () => {
  const cases: [unknown, number, string][] = [
    [body("t.js"), 400, "FF_ERR_VALIDATION"],
    [body(join(elsewhere, "t.js")), 403, "FF_ERR_FORBIDDEN"],
    [body(join(roots, "link.js")), 403, "FF_ERR_FORBIDDEN"],
    [body(join(roots, "..", "..", elsewhere, "t.js")), 403, "FF_ERR_FORBIDDEN"],
    [body(join(roots, "missing.js")), 404, "FF_ERR_TARGET_NOT_FOUND"],
    [body(join(roots, "t.js"), { seconds: 601 }), 400, "FF_ERR_VALIDATION"],
    [body(join(roots, "t.js"), { engine: "bogus" }), 400, "FF_ERR_VALIDATION"],
    [{ target: { path: join(roots, "t.js") }, engine: "input" }, 400, "FF_ERR_VALIDATION"],
  ];
  for (const [payload, status, code] of cases) {
    const r = await start(bearer(CI), payload);
    assert.equal(r.statusCode, status, `${JSON.stringify(payload)}: ${r.body}`);
    assert.equal(r.json().error.code, code);
    assert.doesNotMatch(r.json().error.message, /\n/);
  }
  assert.match((await start(bearer(CI), body(join(roots, "missing.js")))).json().error.message, /^unknown target: /);
  assert.equal(started.length, 0);
});

test("a CI campaign: started with the CI (or admin) token, polled, and its target's buckets read with their reproducers", async () => {
  const path = join(roots, "t.js");
  const r = await start(bearer(CI), body(path, { options: { timeoutMs: 500 }, target: { path, version: "abc123" } }));
  assert.equal(r.statusCode, 201, r.body);
  const id = r.json().id as string;
  assert.deepEqual(started.at(-1), { target: { name: "t.js", path, version: "abc123" }, engine: "input", options: { timeoutMs: 500 }, seconds: 30, jobSeconds: 2 });
  assert.equal((await start(bearer(ADMIN), body(path))).statusCode, 201);

  const camp = await farm.db.prisma.campaign.findUniqueOrThrow({ where: { id }, include: { target: true } });
  await runJob(farm, { target: camp.target, campaign: camp }, { execs: 1234, crashes: [{ message: "Error: boom", signature: "uncaught|boom", stack: `Error: boom\n    at fuzz (${path}:1:30)`, input: "AB" }] });

  const s = await app.inject({ url: `/api/ci/campaigns/${id}`, headers: bearer(CI) });
  assert.equal(s.statusCode, 200, s.body);
  assert.equal(s.json().status, "running");
  assert.equal(s.json().targetPath, path);
  assert.equal(s.json().executions, 1234);
  assert.equal(s.json().buckets, 1);
  assert.equal(typeof s.json().seconds, "number");

  const b = await app.inject({ url: `/api/ci/campaigns/${id}/buckets`, headers: bearer(CI) });
  assert.equal(b.statusCode, 200, b.body);
  const items = b.json().items as { id: string; kind: string; reproduction: { runs: number }; report: { message: string; stack: string; artifact: { reproducer: { engine: string; input: string } } } }[];
  assert.equal(items.length, 1);
  assert.equal(items[0]!.kind, "uncaught");
  assert.deepEqual(items[0]!.reproduction, { runs: 0, hits: 0, label: "unknown" });
  assert.equal(items[0]!.report.message, "Error: boom");
  assert.match(items[0]!.report.stack, /at fuzz/);
  assert.equal(items[0]!.report.artifact.reproducer.engine, "input");
  assert.equal(Buffer.from(items[0]!.report.artifact.reproducer.input, "base64").toString(), "AB");

  assert.equal((await app.inject({ url: "/api/ci/campaigns/nope", headers: bearer(CI) })).json().error.code, "FF_ERR_NOT_FOUND");
});

test("without CI options the API answers 404 (after the credentials check)", async () => {
  const plain = await buildApp({ db: farm.db, queues: farm.queues, redisUrl: REDIS_URL, prefix: farm.prefix, adminToken: ADMIN, dataDir: farm.dataDir });
  try {
    const r = await plain.inject({ method: "POST", url: "/api/ci/campaigns", headers: { ...bearer(ADMIN), "content-type": "application/json" }, payload: JSON.stringify(body(join(roots, "t.js"))) });
    assert.equal(r.statusCode, 404);
    assert.equal((await plain.inject({ method: "POST", url: "/api/ci/campaigns", headers: bearer(CI), payload: {} })).statusCode, 401);
  } finally {
    await plain.close();
  }
});

test("a CI token cannot set options that run commands: optimizerCmd, optimizer, engines, engineMatrix (403, one line, nothing started)", async () => {
  const before = started.length;
  for (const options of [{ optimizerCmd: "touch /tmp/ff-ci-pwned" }, { optimizer: "/tmp/evil-binaryen" }, { engines: ["mine"] }, { engineMatrix: ["deno"] }]) {
    const r = await start(bearer(CI), body(join(roots, "t.js"), { engine: "wasm", options }));
    assert.equal(r.statusCode, 403, r.body);
    const e = JSON.parse(r.body).error;
    assert.equal(e.code, "FF_ERR_FORBIDDEN");
    assert.match(e.message, /^option \w+ runs commands on the farm's workers: a CI campaign may not set it/);
  }
  assert.equal(started.length, before, "nothing started");
});
