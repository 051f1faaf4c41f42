// The JSON API with inject(), against real PostgreSQL and Redis.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startFarm, seedCampaign, runJob, auth, WORKER, type Farm } from "./helpers";

let farm: Farm;
before(async () => {
  farm = await startFarm();
});
after(async () => {
  await farm.close();
});

test("overview and campaign endpoints report what applyResult recorded", async () => {
  const c = await seedCampaign(farm.db);
  await runJob(farm, c, { execs: 5000, features: ["s:a:1", "s:a:2", "race:x|y"], strategyYield: { shuffle: { execs: 5000, newFeatures: 3, findings: 1 } }, crashes: [{ message: "Error: boom", signature: "uncaught|boom" }] });
  await runJob(farm, c, { execs: 7000, features: ["s:a:3"], strategyYield: { delay: { execs: 7000, newFeatures: 1, findings: 0 } } });

  const ov = await farm.app.inject({ method: "GET", url: "/api/overview" });
  assert.equal(ov.statusCode, 200, ov.body);
  const o = ov.json();
  const row = o.campaigns.items.find((x: { id: string }) => x.id === c.campaign.id);
  assert.equal(row.execs, 12000);
  assert.equal(row.covered, 3);
  assert.equal(row.novelty, 1);
  assert.equal(row.buckets, 1);
  assert.equal(row.newBuckets, 1);
  assert.ok(row.execsPerSec > 0);
  assert.ok("jobs-input" in o.queues, JSON.stringify(o.queues));

  const series = (await farm.app.inject({ url: `/api/campaigns/${c.campaign.id}/series` })).json();
  assert.deepEqual(series.points.map((p: { execs: number }) => p.execs), [5000, 12000]);
  const strat = (await farm.app.inject({ url: `/api/campaigns/${c.campaign.id}/strategies` })).json();
  assert.deepEqual(strat.items.map((s: { strategy: string; newFeatures: number }) => [s.strategy, s.newFeatures]), [["shuffle", 3], ["delay", 1]]);
  const tp = (await farm.app.inject({ url: `/api/campaigns/${c.campaign.id}/throughput` })).json();
  assert.equal(tp.byStatus.done, 2);
  assert.equal(tp.bins.reduce((n: number, b: { jobs: number }) => n + b.jobs, 0), 2);
  const missing = await farm.app.inject({ url: `/api/campaigns/nope` });
  assert.equal(missing.statusCode, 404);
  assert.equal(missing.json().error.code, "FF_ERR_NOT_FOUND");
});

test("bucket list filters, sorts and paginates on the server", async () => {
  const c = await seedCampaign(farm.db);
  for (let i = 0; i < 5; i++)
    await runJob(farm, c, { crashes: Array.from({ length: i + 1 }, () => ({ message: `E${i}`, signature: `sig-${i}`, title: `T${i}`, kind: i % 2 ? ("rejection" as const) : ("uncaught" as const) })) });
  const page = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}&sort=count&order=desc&limit=2&offset=0` })).json();
  assert.equal(page.total, 5);
  assert.equal(page.items.length, 2);
  assert.deepEqual(page.items.map((b: { title: string }) => b.title), ["T4", "T3"]);
  const p2 = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}&sort=count&order=desc&limit=2&offset=4` })).json();
  assert.deepEqual(p2.items.map((b: { title: string }) => b.title), ["T0"]);
  const rej = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}&kind=rejection` })).json();
  assert.deepEqual(rej.items.map((b: { title: string }) => b.title).sort(), ["T1", "T3"]);
  const q = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}&q=t2` })).json();
  assert.deepEqual(q.items.map((b: { title: string }) => b.title), ["T2"]);
  const bad = await farm.app.inject({ url: `/api/buckets?sort=password` });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().error.code, "FF_ERR_VALIDATION");
  const tooMany = await farm.app.inject({ url: `/api/buckets?limit=100000` });
  assert.equal(tooMany.statusCode, 400);
});

test("triage actions need a token or a session with CSRF, and go through the db actions", async () => {
  const c = await seedCampaign(farm.db);
  await runJob(farm, c, { crashes: [{ message: "A", signature: "sig-a" }, { message: "B", signature: "sig-b" }] });
  await runJob(farm, c, { crashes: [{ message: "A", signature: "sig-a" }] });
  const list = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}&sort=title&order=asc` })).json();
  const [a, b] = list.items as { id: string; count: number }[];
  assert.ok(a && b);

  // No credentials, wrong token, worker token: refused with stable codes.
  let r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/status`, payload: { status: "confirmed" } });
  assert.equal(r.statusCode, 401);
  assert.equal(r.json().error.code, "FF_ERR_UNAUTHORIZED");
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/status`, headers: { authorization: "Bearer wrong-wrong-wrong-wrong" }, payload: { status: "confirmed" } });
  assert.equal(r.statusCode, 401);
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/status`, headers: { authorization: `Bearer ${WORKER}` }, payload: { status: "confirmed" } });
  assert.equal(r.statusCode, 403);
  assert.equal(r.json().error.code, "FF_ERR_FORBIDDEN");
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/status`, headers: auth, payload: { status: "bogus" } });
  assert.equal(r.statusCode, 400);
  assert.equal(r.json().error.code, "FF_ERR_VALIDATION");

  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/status`, headers: { ...auth, "x-fuzzfarm-actor": "alice" }, payload: { status: "confirmed" } });
  assert.equal(r.statusCode, 200, r.body);
  assert.deepEqual(r.json(), { from: "new", to: "confirmed" });
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/notes`, headers: auth, payload: { note: "looks like a close/timeout race" } });
  assert.equal(r.statusCode, 200, r.body);

  // Session: login, then a write without CSRF is refused, with CSRF accepted.
  const login = await farm.app.inject({ method: "POST", url: "/login", payload: { token: (auth.authorization as string).slice(7) } });
  assert.equal(login.statusCode, 200, login.body);
  const cookie = String(login.headers["set-cookie"]).split(";")[0]!;
  assert.match(String(login.headers["set-cookie"]), /HttpOnly; SameSite=Strict/);
  const csrf = login.json().csrfToken as string;
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/merge`, headers: { cookie }, payload: { from: [b.id] } });
  assert.equal(r.statusCode, 403);
  assert.equal(r.json().error.code, "FF_ERR_FORBIDDEN");
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/merge`, headers: { cookie, "x-csrf-token": "x".repeat(43) }, payload: { from: [b.id] } });
  assert.equal(r.statusCode, 403);
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/merge`, headers: { cookie, "x-csrf-token": csrf }, payload: { from: [b.id] } });
  assert.equal(r.statusCode, 200, r.body);
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/merge`, headers: { cookie, "x-csrf-token": csrf }, payload: { from: [a.id] } });
  assert.equal(r.statusCode, 409);
  assert.equal(r.json().error.code, "FF_ERR_CONFLICT");

  const detail = (await farm.app.inject({ url: `/api/buckets/${a.id}` })).json();
  assert.equal(detail.status, "confirmed");
  assert.equal(detail.note, "looks like a close/timeout race");
  assert.equal(detail.count, 3);
  assert.equal(detail.reportCount, 3);
  assert.ok(detail.events.some((e: { action: string; actor: string }) => e.action === "status" && e.actor === "api:admin-token"), "the audit trail names the token, not the x-fuzzfarm-actor header");
  assert.ok(detail.events.some((e: { action: string; actor: string }) => e.action === "merged" && /^web:session-[0-9a-f]{8}$/.test(e.actor)));
  const after = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}` })).json();
  assert.equal(after.total, 1, "the merged bucket leaves the list");

  // Split one report back out.
  const reports = (await farm.app.inject({ url: `/api/buckets/${a.id}/reports?limit=2` })).json();
  assert.equal(reports.total, 3);
  assert.equal(reports.items.length, 2);
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/split`, headers: auth, payload: { reportIds: [reports.items[0].id] } });
  assert.equal(r.statusCode, 200, r.body);
  const { newBucketId } = r.json();
  assert.equal((await farm.app.inject({ url: `/api/buckets/${newBucketId}/reports` })).json().total, 1);

  // Logout ends the session for real.
  r = await farm.app.inject({ method: "POST", url: "/logout", headers: { cookie, "x-csrf-token": csrf } });
  assert.equal(r.statusCode, 200);
  r = await farm.app.inject({ method: "POST", url: `/api/buckets/${a.id}/notes`, headers: { cookie, "x-csrf-token": csrf }, payload: { note: "late" } });
  assert.equal(r.statusCode, 401);
});

test("reproducer downloads and artifact files cannot escape their directory", async () => {
  const { mkdirSync, writeFileSync, symlinkSync } = await import("node:fs");
  const { join } = await import("node:path");
  const c = await seedCampaign(farm.db);
  await runJob(farm, c, { crashes: [{ message: "X", signature: "sig-x", input: "REPRO-BYTES" }] });
  const [bucket] = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}` })).json().items;
  const dl = await farm.app.inject({ url: `/api/buckets/${bucket.id}/reproducer` });
  assert.equal(dl.statusCode, 200);
  assert.equal(dl.body, "REPRO-BYTES");
  assert.match(String(dl.headers["content-disposition"]), /^attachment; filename="[A-Za-z0-9_.-]+"$/);
  assert.equal((await farm.app.inject({ url: `/api/buckets/${bucket.id}/reproducer?variant=minimized` })).statusCode, 404);

  const dir = join(farm.dataDir, "artifacts", "b1");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "input.bin"), "inside");
  writeFileSync(join(farm.dataDir, "secret.txt"), "outside");
  symlinkSync(join(farm.dataDir, "secret.txt"), join(dir, "link.bin"));
  assert.equal((await farm.app.inject({ url: "/api/artifacts/b1/input.bin" })).body, "inside");
  for (const url of [
    "/api/artifacts/../secret.txt",
    "/api/artifacts/b1/../../secret.txt",
    "/api/artifacts/b1/%2e%2e/%2e%2e/secret.txt",
    "/api/artifacts/%2e%2e%2fsecret.txt",
    "/api/artifacts/b1/..%5c..%5csecret.txt",
    "/api/artifacts/%2Fetc%2Fpasswd",
    "/api/artifacts/b1/link.bin",
    "/api/artifacts/b1",
    "/api/artifacts/b1/input.bin%00.txt",
  ]) {
    const r = await farm.app.inject({ url });
    assert.notEqual(r.statusCode, 200, url);
    assert.ok(!r.body.includes("outside"), url);
  }
});

test("worker endpoints take only the worker token", async () => {
  const beat = { id: "w-http-1", host: "box", pid: 42, version: "0.1.0", engines: ["node"], execsPerSec: 12.5, jobsDone: 3 };
  assert.equal((await farm.app.inject({ method: "POST", url: "/api/workers/heartbeat", payload: beat })).statusCode, 401);
  assert.equal((await farm.app.inject({ method: "POST", url: "/api/workers/heartbeat", headers: auth, payload: beat })).statusCode, 403);
  const r = await farm.app.inject({ method: "POST", url: "/api/workers/heartbeat", headers: { authorization: `Bearer ${WORKER}` }, payload: beat });
  assert.equal(r.statusCode, 200, r.body);
  const ws = (await farm.app.inject({ url: "/api/workers" })).json();
  const w = ws.items.find((x: { id: string }) => x.id === "w-http-1");
  assert.equal(w.host, "box");
  assert.equal(w.live, true);
  const bad = await farm.app.inject({ method: "POST", url: "/api/results", headers: { authorization: `Bearer ${WORKER}` }, payload: { jobId: "x" } });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().error.code, "FF_ERR_BAD_JOB");
});

test("OpenAPI document describes the API, metrics are exposed", async () => {
  const doc = (await farm.app.inject({ url: "/openapi.json" })).json();
  assert.equal(doc.openapi, "3.0.3");
  for (const p of ["/api/buckets", "/api/buckets/{id}/merge", "/api/buckets/{id}/split", "/api/buckets/{id}/status", "/api/buckets/{id}/notes", "/api/campaigns/{id}/series", "/api/overview", "/api/workers", "/api/queues"])
    assert.ok(doc.paths[p], `OpenAPI lacks ${p}`);
  assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith("/admin")), "bull-board routes stay out of the document");
  const c = await seedCampaign(farm.db);
  await runJob(farm, c, { execs: 777, crashes: [{ message: "E", signature: "metrics-sig", kind: "rejection" }] });
  const m = await farm.app.inject({ url: "/metrics" });
  assert.equal(m.statusCode, 200);
  assert.ok(m.body.includes(`fuzzfarm_execs_total{campaign="${c.campaign.id}"} 777\n`), "execs per campaign");
  assert.match(m.body, /fuzzfarm_crashes_total\{kind="rejection",status="new"\} [1-9]/);
  assert.match(m.body, /fuzzfarm_job_latency_seconds_count [1-9]/);
  assert.match(m.body, /fuzzfarm_campaigns\{status="running"\} [1-9]/);
  assert.match(m.body, /fuzzfarm_http_request_duration_seconds_count\{method="GET",route="\/openapi.json",status="200"\} 1/);
  // A second scrape does not count the same finished jobs again.
  const count = (body: string) => Number(/fuzzfarm_job_latency_seconds_count (\d+)/.exec(body)![1]);
  assert.equal(count((await farm.app.inject({ url: "/metrics" })).body), count(m.body));
  for (const name of ["fuzzfarm_execs_total", "fuzzfarm_crashes_total", "fuzzfarm_queue_depth", "fuzzfarm_job_latency_seconds_bucket", "fuzzfarm_buckets"]) assert.ok(m.body.includes(name), name);
  assert.match(m.body, /fuzzfarm_queue_depth\{queue="jobs-input",state="waiting"\} 0/);
  const docs = await farm.app.inject({ url: "/docs/" });
  assert.equal(docs.statusCode, 200);
});

test("a bucket filed without a reproduction command still shows `fuzzfarm repro <id>` (page and API)", async () => {
  const c = await seedCampaign(farm.db);
  await runJob(farm, c, { crashes: [{ message: "Error: no cmd", signature: "uncaught|no-cmd" }], recordReproCommand: false });
  const [b] = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}` })).json().items as { id: string }[];
  assert.equal((await farm.app.inject({ url: `/api/buckets/${b!.id}` })).json().reproCommand, `npx fuzzfarm repro ${b!.id}`);
  const page = await farm.app.inject({ url: `/buckets/${b!.id}` });
  assert.match(page.body, new RegExp(`<pre id="repro-cmd">npx fuzzfarm repro ${b!.id}</pre>`));
  assert.doesNotMatch(page.body, /No reproduction command recorded/);
});
