// The HTML pages with inject(): they render what the database holds, escape
// attacker-controlled text, carry a strict CSP, paginate, and the istanbul
// coverage report is built from the campaign's coverage map.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFarm, seedCampaign, runJob, auth, type Farm } from "./helpers";
import { escapeHtml, html } from "../src/index";
import { applyMinimized, insertJobs } from "@fuzzfarm/db";

let farm: Farm;
before(async () => {
  farm = await startFarm();
});
after(async () => {
  await farm.close();
});

const EVIL = [`<script>window.__pwned=1</script>`, `"><img src=x onerror="window.__pwned=2">`, `'><svg onload=alert(3)>`];

test("html escapes every interpolation, nested fragments pass through", () => {
  assert.equal(escapeHtml(`<a href="x" onclick='y'>&\``), "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;");
  const inner = html`<b>${EVIL[0]}</b>`;
  assert.equal(html`<p title="${EVIL[1]}">${inner}${[EVIL[2], html`<i>ok</i>`]}</p>`.value,
    `<p title="&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;"><b>&lt;script&gt;window.__pwned=1&lt;/script&gt;</b>&#39;&gt;&lt;svg onload=alert(3)&gt;<i>ok</i></p>`);
});

test("pages escape crash text, file names and notes, and send a strict CSP", async () => {
  const c = await seedCampaign(farm.db, { name: `evil${EVIL[1]}` });
  await runJob(farm, c, {
    execs: 10,
    crashes: [{
      message: `TypeError: ${EVIL[0]} ${EVIL[1]}`,
      title: `title ${EVIL[2]}`,
      signature: `uncaught|${EVIL[0]}`,
      stack: `TypeError: x\n    at f (/srv/${EVIL[1]}/t.js:1:1)\n    at g (${EVIL[0]}.js:2:2)`,
      frames: [{ fn: EVIL[0], file: `/srv/${EVIL[1]}.js`, line: 3 }],
    }],
  });
  const [b] = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}` })).json().items;
  const note = await farm.app.inject({ method: "POST", url: `/api/buckets/${b.id}/notes`, headers: auth, payload: { note: `note ${EVIL.join(" ")}` } });
  assert.equal(note.statusCode, 200);
  for (const url of ["/", "/buckets", `/buckets/${b.id}`, `/campaigns/${c.campaign.id}`, `/buckets?q=${encodeURIComponent(EVIL[0]!)}`]) {
    const r = await farm.app.inject({ url, headers: { accept: "text/html" } });
    assert.equal(r.statusCode, 200, `${url}: ${r.body.slice(0, 300)}`);
    for (const e of EVIL) assert.ok(!r.body.includes(e), `${url} contains raw ${e}`);
    assert.ok(!/<img\b|<svg onload|<script>window/.test(r.body), `${url} has an injected element`);
    const csp = String(r.headers["content-security-policy"]);
    assert.match(csp, /script-src 'self'(;|$)/, url);
    assert.equal(r.headers["x-content-type-options"], "nosniff");
  }
  const detail = await farm.app.inject({ url: `/buckets/${b.id}` });
  assert.ok(detail.body.includes(escapeHtml(`TypeError: ${EVIL[0]} ${EVIL[1]}`)), "the message is shown, escaped");
  assert.ok(detail.body.includes(escapeHtml(`note ${EVIL.join(" ")}`)), "the note is shown, escaped");
});

test("bucket detail shows the reproduction command, downloads, the Node schedule and the Wasm program", async () => {
  const node = await seedCampaign(farm.db, { engine: "node" });
  await runJob(farm, node, {
    crashes: [{
      message: "Error: closed before timeout",
      signature: "uncaught|close-before-timeout",
      artifact: { seed: 7, trace: { events: [{ id: "timeout@t.js:3#0.0", seq: 0, held: true, t: 5 }, { id: "close@t.js:9#1.0", seq: 1, held: false, t: 1 }], strategy: { name: "delay", params: {} }, fingerprint: "abcd1234abcd1234" } },
      detail: { explanation: "close@t.js:9 ran before timeout@t.js:3 (held 5 ms)" },
    }],
  });
  const [nb] = (await farm.app.inject({ url: `/api/buckets?campaignId=${node.campaign.id}` })).json().items;
  // A minimize job's result, recorded the way the coordinator records it.
  const minJob = `${node.campaign.id}-min`;
  await insertJobs(farm.db, [{ id: minJob, campaignId: node.campaign.id, kind: "minimize", payload: {} }]);
  await applyMinimized(farm.db, {
    jobId: minJob, workerId: "w1", bucketId: nb.id, execs: 40, busyMs: 900,
    minimized: { reproducer: { engine: "node", options: {} }, explanation: "close@t.js:9 delayed past timeout@t.js:3", originalSize: 12, size: 1, tries: 40 },
  });
  const page = (await farm.app.inject({ url: `/buckets/${nb.id}` })).body;
  assert.match(page, /<p class="minimized-explanation">close@t\.js:9 delayed past timeout@t\.js:3<\/p>/);
  assert.match(page, /size 12 → 1, 40 tries/);
  const min = await farm.app.inject({ url: `/api/buckets/${nb.id}/reproducer?variant=minimized` });
  assert.equal(min.statusCode, 200);
  assert.match(String(min.headers["content-disposition"]), /-minimized\.json"$/);
  assert.match(page, /npx fuzzfarm repro --signature &#39;uncaught\|close-before-timeout&#39;/);
  assert.match(page, /data-copy="repro-cmd"/);
  assert.match(page, /reproducer\?variant=original/);
  assert.match(page, /close@t\.js:9 ran before timeout@t\.js:3/);
  assert.match(page, /<code>timeout@t\.js:3#0\.0<\/code><\/td><td>held/);
  assert.match(page, /fingerprint <code>abcd1234abcd1234<\/code>/);

  const wasm = await seedCampaign(farm.db, { engine: "wasm" });
  const wat = `(module\n  (memory (import "env" "memory") 1 1 shared)\n  (func (export "th0") (i32.atomic.rmw.add (i32.const 0) (i32.const 1)) drop))`;
  await runJob(farm, wasm, { crashes: [{ message: "oracle: results differ", signature: "oracle|x", artifact: { trace: { wat } } }] });
  const [wb] = (await farm.app.inject({ url: `/api/buckets?campaignId=${wasm.campaign.id}` })).json().items;
  const wpage = (await farm.app.inject({ url: `/buckets/${wb.id}` })).body;
  assert.ok(wpage.includes(`<pre class="wat">${escapeHtml(wat)}</pre>`));
});

test("triage controls appear for a logged-in session, with its CSRF token", async () => {
  const login = await farm.app.inject({ method: "POST", url: "/login", headers: { "content-type": "application/x-www-form-urlencoded" }, payload: "token=admin-token-0123456789abcdef&next=%2Fbuckets" });
  assert.equal(login.statusCode, 303);
  assert.equal(login.headers.location, "/buckets");
  const cookie = String(login.headers["set-cookie"]).split(";")[0]!;
  const open = await farm.app.inject({ method: "POST", url: "/login", headers: { "content-type": "application/x-www-form-urlencoded" }, payload: "token=admin-token-0123456789abcdef&next=%2F%2Fevil.example" });
  assert.equal(open.headers.location, "/", "no open redirect");
  const wrong = await farm.app.inject({ method: "POST", url: "/login", headers: { "content-type": "application/x-www-form-urlencoded" }, payload: "token=nope" });
  assert.equal(wrong.statusCode, 303);
  assert.match(String(wrong.headers.location), /failed=1/);
  assert.equal(wrong.headers["set-cookie"], undefined);

  const c = await seedCampaign(farm.db);
  await runJob(farm, c, { crashes: [{ message: "E", signature: "s1" }] });
  const [b] = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}` })).json().items;
  const anon = (await farm.app.inject({ url: `/buckets/${b.id}` })).body;
  assert.ok(!anon.includes("data-api="), "no write controls for anonymous readers");
  assert.match(anon, /Log in<\/a> to triage/);
  const mine = (await farm.app.inject({ url: `/buckets/${b.id}`, headers: { cookie } })).body;
  assert.match(mine, /<meta name="csrf-token" content="[A-Za-z0-9_-]{43}">/);
  assert.match(mine, /data-api="\/api\/buckets\/[^"]+\/status"/);
  assert.match(mine, /data-api="\/api\/buckets\/[^"]+\/merge"/);
});

test("the bucket list paginates on the server", async () => {
  // Two campaigns of one target: each stays under the flood cap of new buckets per window.
  const c = await seedCampaign(farm.db, { name: "pager-target" });
  const d = await seedCampaign(farm.db, { name: "pager-target" });
  for (const [k, camp] of [c, d].entries())
    await runJob(farm, camp, { crashes: Array.from({ length: 30 }, (_, j) => ({ message: `M${k * 30 + j}`, signature: `page-${k * 30 + j}`, title: `page bucket ${String(k * 30 + j).padStart(2, "0")}` })) });
  const t = c.target.id;
  const p1 = (await farm.app.inject({ url: `/buckets?targetId=${t}&sort=title&order=asc` })).body;
  assert.equal((p1.match(/<tr data-bucket=/g) ?? []).length, 50);
  assert.match(p1, /page 1 of 2 \(60\)/);
  const p2 = (await farm.app.inject({ url: `/buckets?targetId=${t}&sort=title&order=asc&page=2` })).body;
  assert.equal((p2.match(/<tr data-bucket=/g) ?? []).length, 10);
  assert.match(p2, /page bucket 59/);
  assert.ok(!p2.includes("page bucket 00"));
});

test("coverage report is built by istanbul from Campaign.coverageMap, sources only from the target's folder", async () => {
  const root = join(farm.dataDir, "target-src");
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "lib.js"), "function add(a, b) {\n  return a + b;\n}\nmodule.exports = add;\n");
  writeFileSync(join(farm.dataDir, "secret.js"), "const SECRET = 'hunter2';\n");
  const fc = (path: string) => ({
    path,
    statementMap: { "0": { start: { line: 2, column: 2 }, end: { line: 2, column: 15 } }, "1": { start: { line: 4, column: 0 }, end: { line: 4, column: 22 } } },
    fnMap: { "0": { name: "add", decl: { start: { line: 1, column: 9 }, end: { line: 1, column: 12 } }, loc: { start: { line: 1, column: 20 }, end: { line: 3, column: 1 } }, line: 1 } },
    branchMap: {},
    s: { "0": 3, "1": 1 },
    f: { "0": 3 },
    b: {},
  });
  const evilName = join(root, `${EVIL[0]}.js`);
  const c = await seedCampaign(farm.db, { path: join(root, "main.js") });
  await runJob(farm, c, { coverage: { [join(root, "lib.js")]: fc(join(root, "lib.js")), [join(farm.dataDir, "secret.js")]: fc(join(farm.dataDir, "secret.js")), [evilName]: fc(evilName), "../../../../tmp/escape": fc("../../../../tmp/escape") } });

  const page = await farm.app.inject({ url: `/campaigns/${c.campaign.id}/coverage` });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<iframe class="coverage" src="\/campaigns\/[^"]+\/coverage\/report\/index.html"/);
  const index = await farm.app.inject({ url: `/campaigns/${c.campaign.id}/coverage/report/index.html` });
  assert.equal(index.statusCode, 200);
  assert.match(index.body, /ff-web-/);
  for (const e of EVIL) assert.ok(!index.body.includes(e));
  const csp = String(index.headers["content-security-policy"]);
  assert.match(csp, /script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
  assert.ok(!csp.includes("unsafe-inline'; script") && !/script-src[^;]*unsafe-inline/.test(csp));

  const summary = (await farm.app.inject({ url: `/api/campaigns/${c.campaign.id}/coverage` })).json();
  const lib = summary.files.find((f: { file: string }) => f.file.endsWith("/lib.js"));
  assert.equal(lib.statements.covered, 2);
  assert.equal(lib.functions.pct, 100);
  assert.ok(summary.files.every((f: { file: string }) => /^\/[A-Za-z0-9._@+~ /-]+$/.test(f.file) && !f.file.includes("/../")), JSON.stringify(summary.files.map((f: { file: string }) => f.file)));

  // Per-line page of lib.js shows its source; the file outside the target's folder does not leak.
  const { readdirSync } = await import("node:fs");
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
  const files = walk(join(farm.dataDir, "coverage-reports"));
  assert.ok(files.every((f) => f.startsWith(join(farm.dataDir, "coverage-reports"))));
  const libPage = files.find((f) => f.endsWith("lib.js.html"))!;
  const rel = libPage.split("coverage-reports/")[1]!.split("/").slice(2).join("/");
  const r = await farm.app.inject({ url: `/campaigns/${c.campaign.id}/coverage/report/${rel}` });
  assert.equal(r.statusCode, 200, rel);
  assert.match(r.body, /return a \+ b;/);
  const secretPage = files.find((f) => f.endsWith("secret.js.html"))!;
  const { readFileSync } = await import("node:fs");
  assert.ok(!readFileSync(secretPage, "utf8").includes("hunter2"));
  const trav = await farm.app.inject({ url: `/campaigns/${c.campaign.id}/coverage/report/..%2F..%2F..%2Fsecret.js` });
  assert.equal(trav.statusCode, 404);
});

test("bull-board is mounted under /admin/queues for admins only", async () => {
  const anon = await farm.app.inject({ url: "/admin/queues", headers: { accept: "text/html" } });
  assert.equal(anon.statusCode, 303);
  assert.match(String(anon.headers.location), /^\/login\?next=/);
  const api = await farm.app.inject({ url: "/admin/queues/api/queues" });
  assert.equal(api.statusCode, 401);
  const ok = await farm.app.inject({ url: "/admin/queues", headers: auth });
  assert.equal(ok.statusCode, 200);
  const q = await farm.app.inject({ url: "/admin/queues/api/queues?activeQueue=jobs-input&page=1&jobsPerPage=10", headers: auth });
  assert.equal(q.statusCode, 200, q.body.slice(0, 200));
  assert.ok(q.json().queues.some((x: { name: string }) => x.name === "jobs-input"));
});
