// The dashboard in a real browser (headless chromium): the overview updates
// live while a campaign runs, a bucket is triaged by clicking (status, merge,
// note), and attacker-controlled text never executes. Screenshots go to
// test-artifacts/web/ (gitignored).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { publishEvent, publishHeartbeat } from "@fuzzfarm/queue";
import { startFarm, seedCampaign, runJob, ADMIN, type Farm } from "./helpers";
import { launch, screenshot } from "./browser";

// Functions passed to page.evaluate run in the browser; the repo's tsconfig has no DOM lib.
declare const window: Record<string, unknown>;
declare const document: { querySelector(s: string): { textContent: string | null } | null; querySelectorAll(s: string): { length: number } };

let farm: Farm;
let browser: Browser;
let base: string;

before(async () => {
  farm = await startFarm();
  await farm.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(farm.app.server.address() as AddressInfo).port}`;
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await farm.close();
});

/** Fail the test on any dialog, page error or console error (an XSS payload that runs would cause one). */
function guard(page: Page, problems: string[]) {
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  // Our own markup must not need anything the CSP refuses, and no resource may fail to load.
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
}

async function login(page: Page) {
  await page.goto(`${base}/login`);
  await page.fill('input[name="token"]', ADMIN);
  await Promise.all([page.waitForURL(`${base}/`), page.click('form.login-form button[type="submit"]')]);
}

test("the overview updates live while a campaign runs", async () => {
  const c = await seedCampaign(farm.db, { name: "live-target" });
  await runJob(farm, c, { execs: 1000, features: ["s:a:1"] });
  const page = await browser.newPage();
  const problems: string[] = [];
  guard(page, problems);
  await page.goto(`${base}/`);
  await page.waitForSelector("body[data-live-connected]");
  await page.evaluate(() => ((window as unknown as { __sameDocument: number }).__sameDocument = 42));
  const cell = (field: string) => page.textContent(`tr[data-campaign="${c.campaign.id}"] [data-field="${field}"]`);
  assert.equal(await cell("execs"), "1,000");

  let execs = 1000;
  for (let i = 0; i < 4; i++) {
    await runJob(farm, c, { execs: 2500, features: [`s:a:${i + 2}`], crashes: i === 2 ? [{ message: "Error: late close", signature: "uncaught|late-close" }] : [] });
    execs += 2500;
    await page.waitForFunction(
      ([id, want]) => document.querySelector(`tr[data-campaign="${id}"] [data-field="execs"]`)?.textContent === want,
      [c.campaign.id, execs.toLocaleString("en-US")] as const,
      { timeout: 10_000 },
    );
  }
  assert.match((await cell("covered")) ?? "", /^5 /);
  assert.equal(await cell("newBuckets"), "1");

  // A worker joins: its heartbeat plus a `workers` event make it appear without a reload.
  await publishHeartbeat(farm.queues.connection, farm.prefix, { id: "w-live-1", host: "fuzzbox-7", pid: 4242, version: "0.1.0", engines: ["input", "node"], currentJobId: `${c.campaign.id}-9`, execsPerSec: 812.5, jobsDone: 4, at: Date.now() });
  await publishEvent(farm.queues.connection, farm.prefix, { type: "workers", count: 1 });
  await page.waitForSelector('tr[data-worker="w-live-1"]', { timeout: 10_000 });
  assert.match((await page.textContent('tr[data-worker="w-live-1"]')) ?? "", /fuzzbox-7.*input, node/s);

  assert.equal(await page.evaluate(() => (window as unknown as { __sameDocument?: number }).__sameDocument), 42, "updated without reloading");
  assert.ok(Number(await page.getAttribute("body", "data-live-refreshes")) >= 5);
  await screenshot(page, "overview-live");

  // The campaign page follows too: its cards and charts refresh on the next result.
  await page.goto(`${base}/campaigns/${c.campaign.id}`);
  await page.waitForSelector("body[data-live-connected]");
  await runJob(farm, c, { execs: 1000, features: ["race:a|b", "s:a:9"], strategyYield: { shuffle: { execs: 1000, newFeatures: 2, findings: 0 } } });
  await page.waitForFunction((want) => document.querySelector('[data-field="execs"]')?.textContent === want, (execs + 1000).toLocaleString("en-US"), { timeout: 10_000 });
  assert.equal(await page.textContent('.cards [data-field="novelty"]'), "1");
  assert.match((await page.textContent('table[data-live="strategies"]')) ?? "", /shuffle/);
  await screenshot(page, "campaign-live");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a bucket is triaged by clicking: status changed, two buckets merged, a note added", async () => {
  const c = await seedCampaign(farm.db, { name: "triage-target" });
  await runJob(farm, c, { crashes: [{ message: "TypeError: a is undefined", signature: "uncaught|a", title: "TypeError in read()" }, { message: "TypeError: a is undefined (2)", signature: "uncaught|a2", title: "TypeError in read() again" }] });
  const list = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}&sort=title&order=asc` })).json().items as { id: string; title: string }[];
  const [a, b] = list;
  assert.ok(a && b);

  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const problems: string[] = [];
  guard(page, problems);
  await page.goto(`${base}/buckets/${a.id}`);
  assert.equal(await page.locator("#status-form").count(), 0, "no triage controls before logging in");
  await login(page);
  await page.goto(`${base}/buckets?campaignId=${c.campaign.id}`);
  await Promise.all([page.waitForURL(`${base}/buckets/${a.id}`), page.click(`tr[data-bucket="${a.id}"] a`)]);

  // Status.
  await page.selectOption('#status-form select[name="status"]', "confirmed");
  await Promise.all([page.waitForEvent("load"), page.click('#status-form button[type="submit"]')]);
  assert.equal(await page.textContent('[data-field="status"]'), "confirmed");

  // Merge: tick the similar bucket, click merge.
  await page.check(`#merge-form input[name="from"][value="${b.id}"]`);
  await Promise.all([page.waitForEvent("load"), page.click('#merge-form button[type="submit"]')]);
  assert.match((await page.textContent('[data-field="count"]')) ?? "", /^2 hits in 2 reports/);
  await screenshot(page, "bucket-triaged");

  // Note.
  await page.fill('#note-form textarea[name="note"]', "race between close and timeout; see PR 12");
  await Promise.all([page.waitForEvent("load"), page.click('#note-form button[type="submit"]')]);
  assert.equal(await page.textContent('[data-field="note"]'), "race between close and timeout; see PR 12");

  const merged = (await farm.app.inject({ url: `/api/buckets/${b.id}` })).json();
  assert.equal(merged.mergedIntoId, a.id);
  const into = (await farm.app.inject({ url: `/api/buckets/${a.id}` })).json();
  assert.equal(into.status, "confirmed");
  assert.ok(into.events.some((e: { action: string; actor: string }) => e.action === "merged" && /^web:session-[0-9a-f]{8}$/.test(e.actor)));
  await page.goto(`${base}/buckets?campaignId=${c.campaign.id}`);
  assert.equal(await page.locator("tr[data-bucket]").count(), 1, "the merged bucket left the list");
  assert.deepEqual(problems, []);
  await ctx.close();
});

const PAYLOADS = [
  `<script>window.__pwned=1</script>`,
  `"><img src=x onerror="window.__pwned=2;alert(2)">`,
  `'><svg onload="window.__pwned=3;alert(3)">`,
];

test("crash text, file names and notes with markup never execute", async () => {
  const root = join(farm.dataDir, "xss-src");
  mkdirSync(root, { recursive: true });
  const evilFile = join(root, `${PAYLOADS[1]}.js`);
  writeFileSync(join(root, "ok.js"), "module.exports = 1;\n");
  const fc = (path: string) => ({ path, statementMap: { "0": { start: { line: 1, column: 0 }, end: { line: 1, column: 20 } } }, fnMap: {}, branchMap: {}, s: { "0": 1 }, f: {}, b: {} });
  const c = await seedCampaign(farm.db, { name: `xss ${PAYLOADS[0]}`, version: PAYLOADS[2], path: join(root, "main.js") });
  await runJob(farm, c, {
    coverage: { [evilFile]: fc(evilFile), [join(root, "ok.js")]: fc(join(root, "ok.js")), [`/x/${PAYLOADS[0]}/y.js`]: fc(`/x/${PAYLOADS[0]}/y.js`) },
    strategyYield: { [PAYLOADS[2]]: { execs: 10, newFeatures: 1, findings: 1 } },
    crashes: [{
      message: `Error: ${PAYLOADS[0]} ${PAYLOADS[1]}`,
      title: `crash ${PAYLOADS[2]}`,
      signature: `uncaught|${PAYLOADS[0]}`,
      stack: `Error: x\n    at f (/srv/${PAYLOADS[1]}.js:1:1)\n    at g (/srv/${PAYLOADS[0]}.js:2:2)`,
      frames: [{ fn: PAYLOADS[2], file: `/srv/${PAYLOADS[1]}.js`, line: 1 }],
      artifact: { trace: { events: [{ id: `timeout@${PAYLOADS[1]}:1#0.0`, seq: 0, held: true, t: 1 }], fingerprint: PAYLOADS[0] } },
      detail: { explanation: `ran ${PAYLOADS[0]} first` },
    }],
  });
  const [bucket] = (await farm.app.inject({ url: `/api/buckets?campaignId=${c.campaign.id}` })).json().items as { id: string }[];

  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const problems: string[] = [];
  guard(page, problems);
  await login(page);
  // The note goes in through the page's own form.
  await page.goto(`${base}/buckets/${bucket!.id}`);
  await page.fill('#note-form textarea[name="note"]', `note ${PAYLOADS.join(" ")}`);
  await Promise.all([page.waitForEvent("load"), page.click('#note-form button[type="submit"]')]);

  const injected = () =>
    page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
      elements: document.querySelectorAll("main img, main script, [onerror], [onload]").length,
      text: document.querySelector("main")?.textContent ?? "",
    }));
  for (const url of ["/", "/buckets", `/buckets/${bucket!.id}`, `/campaigns/${c.campaign.id}`, `/campaigns/${c.campaign.id}?scale=log`]) {
    await page.goto(`${base}${url}`);
    const r = await injected();
    assert.equal(r.pwned, null, `${url}: a payload ran`);
    assert.equal(r.elements, 0, `${url}: markup from crash text became elements`);
    assert.ok(PAYLOADS.some((p) => r.text.includes(p)), `${url}: the payload text is shown literally`);
  }
  await page.goto(`${base}/buckets/${bucket!.id}`);
  const detail = (await injected()).text;
  for (const p of PAYLOADS) assert.ok(detail.includes(`note ${PAYLOADS.join(" ")}`) && detail.includes(p));
  await screenshot(page, "xss-bucket");

  // The istanbul report, inside its iframe.
  await page.goto(`${base}/campaigns/${c.campaign.id}/coverage`);
  const frame = page.frameLocator("iframe.coverage");
  await frame.locator("table.coverage-summary").waitFor();
  const inFrame = await page.frames()[1]!.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
    elements: document.querySelectorAll("img, svg, [onerror], [onload]").length,
  }));
  assert.deepEqual(inFrame, { pwned: null, elements: 0 });
  await screenshot(page, "xss-coverage");
  assert.deepEqual(problems, []);
  await ctx.close();
});

test("a target source holding istanbul's tag-marker bytes cannot inject a script into its coverage page", async () => {
  const root = join(farm.dataDir, "marker-src");
  mkdirSync(root, { recursive: true });
  const file = join(root, "marked.js");
  // istanbul's annotator writes \x01 / \x02 for "<" / ">" and converts them after escaping.
  writeFileSync(file, `// \x01script\x02window.__pwned=9;document.title="pwned"\x01/script\x02\nmodule.exports = 1;\n`);
  const fc = { path: file, statementMap: { "0": { start: { line: 2, column: 0 }, end: { line: 2, column: 19 } } }, fnMap: {}, branchMap: {}, s: { "0": 1 }, f: {}, b: {} };
  const c = await seedCampaign(farm.db, { name: "marker", path: join(root, "main.js") });
  await runJob(farm, c, { coverage: { [file]: fc } });
  await farm.app.inject({ url: `/campaigns/${c.campaign.id}/coverage` });
  const index = await farm.app.inject({ url: `/campaigns/${c.campaign.id}/coverage/report/index.html` });
  const href = /href="([^"]*marked\.js\.html)"/.exec(index.body)?.[1];
  assert.ok(href, "the report lists the file");
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const problems: string[] = [];
  guard(page, problems);
  await page.goto(`${base}/campaigns/${c.campaign.id}/coverage/report/${href}`);
  await page.waitForSelector("table.coverage");
  const r = await page.evaluate(() => ({ pwned: (window as unknown as { __pwned?: number }).__pwned ?? null, title: (document as unknown as { title: string }).title }));
  assert.equal(r.pwned, null);
  assert.notEqual(r.title, "pwned");
  assert.deepEqual(problems, []);
  await ctx.close();
});
