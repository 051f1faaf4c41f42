// What a target or an anonymous client controls, against the real app (real
// PostgreSQL, Redis, files and HTTP sockets): file names in a coverage map,
// GitHub webhook bodies, and query strings. Each test is an attack that
// worked before its boundary was closed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createHmac, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createCampaign, upsertTarget } from "@fuzzfarm/db";
import { pullRequestChecks } from "@fuzzfarm/github";
import { startFakeGitHub } from "@fuzzfarm/github/testing";
import { buildApp } from "../src/index";
import { startFarm, seedCampaign, runJob, sendBig, ADMIN, REDIS_URL, type Farm } from "./helpers";

let farm: Farm;
before(async () => {
  farm = await startFarm();
});
after(async () => {
  await farm.close();
});

/** An istanbul file coverage naming `path`, one covered statement per line 1..3. */
const fileCoverage = (path: string) => ({
  path,
  statementMap: Object.fromEntries([0, 1, 2].map((i) => [String(i), { start: { line: i + 1, column: 0 }, end: { line: i + 1, column: 5 } }])),
  fnMap: {},
  branchMap: {},
  s: { "0": 1, "1": 1, "2": 1 },
  f: {},
  b: {},
});

test("the coverage report shows the target's repository only: not the data directory, .git, a symlink out or a file outside", async () => {
  const repo = mkdtempSync(join(tmpdir(), "ff-cov-repo-"));
  const outside = mkdtempSync(join(tmpdir(), "ff-cov-out-"));
  const dataDir = join(repo, ".fuzzfarm"); // `fuzzfarm up` in a project: the data directory sits in the repository
  const key = `JOBKEY-${randomBytes(12).toString("hex")}`;
  const gitSecret = `GITTOKEN-${randomBytes(12).toString("hex")}`;
  const outSecret = `OUTSIDE-${randomBytes(12).toString("hex")}`;
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, "lib"));
  writeFileSync(join(dataDir, "job-key"), `${key}\n`, { mode: 0o600 });
  writeFileSync(join(repo, ".git", "config"), `[remote "origin"]\n  url = https://x:${gitSecret}@example.invalid/r.git\n`);
  writeFileSync(join(outside, "secret.js"), `const s = "${outSecret}";\n`);
  symlinkSync(join(outside, "secret.js"), join(repo, "link.js"));
  writeFileSync(join(repo, "fuzz.js"), "export function fuzz(d) {\n  return d;\n}\n");
  writeFileSync(join(repo, "lib", "util.js"), "export const shownLibLine = 1;\nexport const b = 2;\nexport const c = 3;\n");
  const app = await buildApp({ db: farm.db, queues: farm.queues, redisUrl: REDIS_URL, prefix: farm.prefix, adminToken: ADMIN, dataDir });
  try {
    const c = await seedCampaign(farm.db, { path: join(repo, "fuzz.js") });
    const names = [".fuzzfarm/job-key", join(dataDir, "job-key"), ".git/config", join(repo, ".git", "config"), "link.js", join(outside, "secret.js"), "lib/util.js"];
    await runJob(farm, c, { coverage: Object.fromEntries(names.map((n) => [n, fileCoverage(n)])) });
    assert.equal((await app.inject({ url: `/campaigns/${c.campaign.id}/coverage` })).statusCode, 200);
    const reports = join(dataDir, "coverage-reports");
    const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
    const pages = walk(reports).filter((f) => f.endsWith(".html"));
    let all = "";
    for (const f of pages) {
      const rel = relative(reports, f).split("/").slice(2).join("/");
      const r = await app.inject({ url: `/campaigns/${c.campaign.id}/coverage/report/${rel}` });
      assert.equal(r.statusCode, 200, rel);
      all += r.body;
    }
    for (const [what, secret] of [["the job key", key], ["a .git file", gitSecret], ["a file outside the repository", outSecret]] as const) assert.ok(!all.includes(secret), `the report shows ${what}`);
    assert.match(all, /shownLibLine/, "a file of the repository outside the target's own folder is shown");
    const placeholders = all.match(/source not shown: not in the target(&#39;|')s repository/g) ?? [];
    assert.equal(placeholders.length, names.length - 1, `each of the ${names.length - 1} refused files says why`);
  } finally {
    await app.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test("webhook, App mode off: a 24 MB anonymous body, 8 at once, with a length or streamed, is answered 404 before it is read", async () => {
  await farm.app.listen({ host: "127.0.0.1", port: 0 });
  const port = (farm.app.server.address() as AddressInfo).port;
  const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => sendBig(port, "/api/github/webhook", 24, { "x-github-event": "pull_request" }, { chunked: i % 2 === 1 })));
  for (const r of runs) {
    assert.equal(r.status, 404);
    assert.ok(r.sentBytes < 24 * 1024 * 1024, `the answer waited for the whole body (${r.sentBytes} bytes sent)`);
  }
});

test("webhook, App mode on: bodies over the cap get 413 before they are read; a signed body replayed under a new delivery id starts nothing", async () => {
  const secret = "surface-webhook-secret";
  const gh = await startFakeGitHub({ token: "ghs_surface" });
  const t = await upsertTarget(farm.db, { name: `gh-${randomBytes(4).toString("hex")}`, engine: "input", path: "/srv/pr/fuzz.js", version: "v1" });
  const started: string[] = [];
  const onCheckRequest = pullRequestChecks({
    client: { auth: { kind: "token", token: "ghs_surface" }, baseUrl: gh.url },
    runner: async () => {
      const c = await createCampaign(farm.db, { targetId: t.id, engine: "input", config: {}, deadline: new Date(Date.now() + 60_000) });
      started.push(c.id);
      return { campaignId: c.id, done: new Promise(() => {}) };
    },
  });
  const app = await buildApp({ db: farm.db, queues: farm.queues, redisUrl: REDIS_URL, prefix: farm.prefix, adminToken: ADMIN, dataDir: farm.dataDir, github: { webhookSecret: secret, onCheckRequest } });
  try {
    await app.listen({ host: "127.0.0.1", port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const sign = (body: string | Buffer) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
    const headers = (delivery: string, body: string | Buffer) => ({ "x-github-event": "pull_request", "x-github-delivery": delivery, "x-hub-signature-256": sign(body) });
    const big = Buffer.alloc(24 * 1024 * 1024, 0x61); // what sendBig sends
    const withLength = await Promise.all(Array.from({ length: 8 }, (_, i) => sendBig(port, "/api/github/webhook", 24, headers(`big-${i}`, big))));
    for (const r of withLength) {
      assert.equal(r.status, 413);
      assert.ok(r.sentBytes < 24 * 1024 * 1024, `413 only after the whole body (${r.sentBytes} bytes sent)`);
    }
    // streamed (no length to judge it by) and unsigned: 401 on the headers alone
    const anonymous = await sendBig(port, "/api/github/webhook", 24, { "x-github-event": "pull_request", "x-github-delivery": "anon" }, { chunked: true });
    assert.equal(anonymous.status, 401);
    assert.ok(anonymous.sentBytes < 24 * 1024 * 1024);
    const streamed = await sendBig(port, "/api/github/webhook", 4, headers("streamed", Buffer.alloc(4 * 1024 * 1024, 0x61)), { chunked: true });
    assert.ok(streamed.status === 413 || streamed.status === "EPIPE" || streamed.status === "ECONNRESET", String(streamed.status));

    const payload = JSON.stringify({
      action: "synchronize",
      pull_request: { number: 3, head: { sha: "d".repeat(40), ref: "feature" }, base: { ref: "main" } },
      repository: { name: "widgets", owner: { login: "acme" }, clone_url: "https://example.invalid/acme/widgets.git" },
    });
    const post = (delivery: string) => app.inject({ method: "POST", url: "/api/github/webhook", payload, headers: { "content-type": "application/json", ...headers(delivery, payload) } });
    const first = await post("d-first");
    assert.equal(first.statusCode, 202, first.body);
    assert.equal(first.json().started, true);
    for (const again of ["d-first", "d-second", "d-third"]) {
      const r = await post(again);
      assert.equal(r.statusCode, 401, `${again}: ${r.body}`);
      assert.match(r.json().error.message, /already received/);
    }
    assert.deepEqual(started, [first.json().campaignId]);
    assert.equal(await farm.db.prisma.campaign.count({ where: { targetId: t.id } }), 1);
    assert.equal(gh.requests.filter((r) => r.operationId === "checks/create").length, 1);
  } finally {
    await app.close();
    await gh.close();
  }
});

/** Every route of the app as [method, path], read from fastify's own route tree (printRoutes). */
function routesOf(tree: string): [string, string][] {
  const out: [string, string][] = [];
  const stack: string[] = [];
  for (const line of tree.split("\n")) {
    const m = /^([│ ]*)[├└]── (.*?) \(([A-Z, ]+)\)$/.exec(line.replace(/\u00a0/g, " "));
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = stack.join("").replace(/\/{2,}/g, "/");
    for (const method of m[3]!.split(", ")) if (method !== "HEAD") out.push([method, path]);
  }
  return out;
}

const ODD_QUERIES = ["kind=%00", "q=%ff", "status=%c3%28", "next=%ed%a0%80", "page=%E0%A4%A", "kind=a&kind=b", "limit=1&limit=2", "sort=%1b%5b2J", "%00=x", "x=%c2%9b"];

test("odd query strings on every route answer 400 with one line, never 500", async () => {
  const c = await seedCampaign(farm.db);
  await runJob(farm, c, { crashes: [{ message: "Error: q", signature: `uncaught|q-${randomBytes(3).toString("hex")}` }] });
  const bucket = (await farm.db.prisma.crashBucket.findFirstOrThrow({ where: { targetId: c.target.id } })).id;
  const routes = routesOf(farm.app.printRoutes({ commonPrefix: false }));
  assert.ok(routes.length > 40, `routes read from the tree: ${routes.length}`);
  const real = (path: string) => path.replace(/:id/g, path.includes("bucket") ? bucket : c.campaign.id).replace(/:queueName/g, "jobs-input").replace(/:[A-Za-z]+/g, "x").replace(/\*/g, "x");
  const bad: string[] = [];
  for (const [method, path] of routes)
    for (const q of ODD_QUERIES) {
      const r = await farm.app.inject({ method: method as "GET", url: `${real(path)}?${q}`, headers: { authorization: `Bearer ${ADMIN}` } });
      if (r.statusCode !== 400 || r.json().error.code !== "FF_ERR_VALIDATION" || r.json().error.message.includes("\n")) bad.push(`${method} ${path}?${q}: ${r.statusCode} ${r.body.slice(0, 120)}`);
    }
  assert.deepEqual(bad, []);
  // Odd path parameters are refused too, never a 500.
  const badPaths: string[] = [];
  for (const [method, path] of routes.filter(([, p]) => p.includes(":") || p.includes("*")))
    for (const seg of ["%00", "%ff", "%ed%a0%80"]) {
      const r = await farm.app.inject({ method: method as "GET", url: path.replace(/:[A-Za-z]+|\*/g, seg), headers: { authorization: `Bearer ${ADMIN}` } });
      if (r.statusCode >= 500) badPaths.push(`${method} ${path} with ${seg}: ${r.statusCode} ${r.body.slice(0, 120)}`);
    }
  assert.deepEqual(badPaths, []);
  // Plain queries still work.
  assert.equal((await farm.app.inject({ url: `/api/buckets?kind=uncaught&q=%C3%A9t%C3%A9&targetId=${c.target.id}` })).statusCode, 200);
});
