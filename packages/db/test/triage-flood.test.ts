// Flood throttling against real PostgreSQL: a campaign producing 1,000
// distinct-looking crashes in one window opens exactly `cap` buckets; the
// rest are grouped per crash site into flood buckets with a note and event.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { createTestDb, type TestDb } from "@fuzzfarm/db/testing";
import { crashSite, floodStatus, listBuckets, shouldThrottle, splitBucket } from "@fuzzfarm/db";
import { pool, report, setup } from "./triage-helpers";

let db: TestDb;
before(async () => {
  db = await createTestDb();
});
after(async () => {
  await db.close();
});

const SITES = ["lib/a.js:parse", "lib/b.js:read", "lib/c.js:close", "lib/d.js:onTimeout"];
const frameOf = (site: string) => {
  const [file, fn] = site.split(":");
  return [{ fn, file, line: 3, col: 1 }, { fn: "caller", file: "main.js" }];
};
const now = new Date("2026-12-10T12:00:10.000Z");

test("1,000 distinct signatures in a minute: 50 buckets, the rest grouped into one flood bucket per site", async () => {
  const { t, c } = await setup(db);
  const flood = { now, cap: 50, windowMs: 60_000 };
  const recs = await pool(1000, 10, (i) =>
    report(db, t.id, c.id, `uncaught|Error|fn${i}@lib/x.js`, { frames: frameOf(SITES[i % SITES.length]!), flood }),
  );
  const flooded = recs.filter((r) => r.floodSite);
  assert.equal(flooded.length, 950);
  assert.equal(recs.filter((r) => r.newBucket && !r.floodSite).length, 50);

  const buckets = await db.prisma.crashBucket.findMany({ where: { targetId: t.id } });
  const floods = buckets.filter((b) => b.signature.startsWith("flood|"));
  assert.equal(buckets.length, 50 + SITES.length, "the list holds 50 buckets and 4 flood buckets, not 1,000");
  assert.deepEqual(floods.map((b) => b.signature.slice(6)).sort(), [...SITES].sort());
  assert.equal(floods.reduce((n, b) => n + b.count, 0), 950);
  assert.equal(buckets.reduce((n, b) => n + b.count, 0), 1000);
  for (const b of floods) {
    assert.match(b.note ?? "", /More than 50 new crash signatures within 60 s/);
    const ev = await db.prisma.bucketEvent.findMany({ where: { bucketId: b.id, action: "flood" } });
    assert.equal(ev.length, 1, "one flood event per bucket and window");
    assert.equal((ev[0]!.detail as { campaignId: string }).campaignId, c.id);
  }
  assert.equal(await db.prisma.crashReport.count({ where: { campaignId: c.id } }), 1000);
  const own = await db.prisma.crashReport.findFirstOrThrow({ where: { bucketId: floods[0]!.id } });
  assert.match(own.signature, /^uncaught\|Error\|fn\d+@lib\/x\.js$/, "reports keep their own signature");

  const st = await floodStatus(db, { campaignId: c.id, now });
  assert.deepEqual([st.newBuckets, st.throttled, st.flooding, st.cap], [50, 950, true, 50]);
  assert.equal(st.floodBuckets.length, 4);
  assert.deepEqual(st.throttledBySite.map((x) => x.site).sort(), [...SITES].sort());
  assert.equal(st.throttledBySite.reduce((n, x) => n + x.reports, 0), 950);
  assert.equal(st.floodBuckets.reduce((n, f) => n + f.reports, 0), 950);

  // Known signatures are never throttled; unknown ones are, until the next window.
  const known = recs.find((r) => !r.floodSite)!;
  const knownSig = (await db.prisma.crashBucket.findUniqueOrThrow({ where: { id: known.bucketId } })).signature;
  assert.deepEqual(await shouldThrottle(db, { campaignId: c.id, targetId: t.id, signature: knownSig, frames: [], now }), { throttle: false });
  assert.equal((await report(db, t.id, c.id, knownSig, { flood })).bucketId, known.bucketId);
  assert.deepEqual(await shouldThrottle(db, { campaignId: c.id, targetId: t.id, signature: "fresh", frames: frameOf(SITES[1]!), now }), {
    throttle: true,
    site: SITES[1],
    floodSignature: `flood|${SITES[1]}`,
  });
  const later = new Date(now.getTime() + 60_000);
  assert.deepEqual(await shouldThrottle(db, { campaignId: c.id, targetId: t.id, signature: "fresh", frames: [], now: later }), { throttle: false });
  const next = await report(db, t.id, c.id, "fresh", { frames: frameOf(SITES[1]!), flood: { ...flood, now: later } });
  assert.deepEqual([next.newBucket, next.floodSite], [true, undefined], "a new window opens buckets again");

  // Another campaign of the same target has its own allowance.
  const c2 = await db.prisma.campaign.create({ data: { targetId: t.id, engine: "input", config: {}, deadline: later } });
  assert.equal((await report(db, t.id, c2.id, "c2-sig", { flood })).floodSite, undefined);

  const top = await listBuckets(db, { targetId: t.id, limit: 5 });
  assert.ok(top.slice(0, 4).every((b) => b.signature.startsWith("flood|")), "flood buckets lead the list by count");
});

test("a flood report can be split out into its own bucket, which later reports of it then join", async () => {
  const { t, c } = await setup(db);
  const flood = { now, cap: 1 };
  await report(db, t.id, c.id, "first", { flood });
  const r = await report(db, t.id, c.id, "second", { flood, frames: frameOf(SITES[0]!) });
  await report(db, t.id, c.id, "third", { flood, frames: frameOf(SITES[0]!) });
  assert.equal(r.floodSite, SITES[0]);
  const rep = await db.prisma.crashReport.findFirstOrThrow({ where: { bucketId: r.bucketId, signature: "second" } });
  const { newBucketId } = await splitBucket(db, { bucketId: r.bucketId, reportIds: [rep.id], actor: "u" });
  assert.equal((await db.prisma.crashBucket.findUniqueOrThrow({ where: { id: newBucketId } })).signature, "second");
  assert.equal((await report(db, t.id, c.id, "second", { flood })).bucketId, newBucketId, "no longer throttled: it has a bucket");
  assert.equal((await report(db, t.id, c.id, "third", { flood, frames: frameOf(SITES[0]!) })).bucketId, r.bucketId);
});

test("throttling is off with flood: false and without a campaign", async () => {
  const { t, c } = await setup(db);
  for (let i = 0; i < 5; i++) assert.equal((await report(db, t.id, c.id, `s${i}`, { flood: false })).newBucket, true);
  for (let i = 0; i < 5; i++) assert.equal((await report(db, t.id, undefined as never, `n${i}`, { flood: { cap: 1, now } })).newBucket, true);
  assert.equal((await floodStatus(db, { campaignId: c.id, now })).newBuckets, 0);
});

test("crash site comes from the first frame", () => {
  assert.equal(crashSite([{ fn: "parse", file: "lib/p.js", line: 1 }]), "lib/p.js:parse");
  assert.equal(crashSite([{ function: "f", file: "a.js" }]), "a.js:f");
  assert.equal(crashSite(["wasm-function[3]"]), "wasm-function[3]");
  assert.equal(crashSite([]), "<no frames>");
});
