// Bucket lifecycle against real PostgreSQL: fixed when a newer version no
// longer reproduces, regressed when the crash comes back, ignored stays
// ignored, first/last seen per version, reproduction-rate labels.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { createTestDb, type TestDb } from "@fuzzfarm/db/testing";
import { bucketVersions, markFixedIfNotReproduced, recordReproRate, reproLabel, setBucketStatus, upsertTarget } from "@fuzzfarm/db";
import { report, setup } from "./triage-helpers";

let db: TestDb;
before(async () => {
  db = await createTestDb();
});
after(async () => {
  await db.close();
});

const bucket = (id: string) => db.prisma.crashBucket.findUniqueOrThrow({ where: { id } });
const statusEvents = async (id: string) =>
  (await db.prisma.bucketEvent.findMany({ where: { bucketId: id, action: "status" }, orderBy: { id: "asc" } })).map((e) => e.detail as { from: string; to: string });

test("fixed when a newer version does not reproduce; old-version reports are no regression, new ones are", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "s", { targetVersion: "v1" });
  const out = await markFixedIfNotReproduced(db, { bucketId: a.bucketId, targetVersion: "v2", runs: 20, hits: 0 });
  assert.deepEqual([out.status, out.changed], ["fixed", true]);
  assert.equal((await bucket(a.bucketId)).fixedVersion, "v2");

  await report(db, t.id, c.id, "s", { targetVersion: "v1" });
  assert.equal((await bucket(a.bucketId)).status, "fixed", "a campaign still running v1 is no regression");

  await report(db, t.id, c.id, "s", { targetVersion: "v3" });
  const b = await bucket(a.bucketId);
  assert.equal(b.status, "regressed");
  assert.equal(b.count, 3);
  assert.deepEqual((await statusEvents(a.bucketId)).map((e) => [e.from, e.to]), [["new", "fixed"], ["fixed", "regressed"]]);
});

test("recordCrash flips a manually fixed bucket to regressed on the next report, once", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "s");
  await setBucketStatus(db, { bucketId: a.bucketId, status: "fixed", actor: "u" });
  await Promise.all(Array.from({ length: 5 }, () => report(db, t.id, c.id, "s")));
  assert.equal((await bucket(a.bucketId)).status, "regressed");
  assert.deepEqual((await statusEvents(a.bucketId)).map((e) => e.to), ["fixed", "regressed"], "five concurrent reports, one regression event");
});

test("ignored buckets keep counting and stay ignored", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "s");
  await setBucketStatus(db, { bucketId: a.bucketId, status: "ignored", actor: "u" });
  await report(db, t.id, c.id, "s", { hits: 4 });
  const b = await bucket(a.bucketId);
  assert.deepEqual([b.status, b.count], ["ignored", 5]);
  const out = await markFixedIfNotReproduced(db, { bucketId: a.bucketId, targetVersion: "v9", runs: 10, hits: 0 });
  assert.deepEqual([out.status, out.changed], ["ignored", false]);
});

test("not fixed where it crashed before, nor on an older version; a hit on a fixed bucket is a regression", async () => {
  const { t, c } = await setup(db);
  await upsertTarget(db, { name: t.name, engine: "input", path: "/x/t.js", version: "old" });
  await new Promise((r) => setTimeout(r, 5));
  await upsertTarget(db, { name: t.name, engine: "input", path: "/x/t.js", version: "cur" });
  const a = await report(db, t.id, c.id, "s", { targetVersion: "cur" });
  await report(db, t.id, c.id, "s", { targetVersion: "v-seen" });
  const seen = await markFixedIfNotReproduced(db, { bucketId: a.bucketId, targetVersion: "v-seen", runs: 10, hits: 0 });
  assert.equal(seen.changed, false);
  assert.match(seen.reason, /crashed on v-seen before/);
  // lastSeenVersion is v-seen (not a Target row), so compare with "cur" explicitly through a new report.
  await report(db, t.id, c.id, "s", { targetVersion: "cur" });
  const older = await markFixedIfNotReproduced(db, { bucketId: a.bucketId, targetVersion: "old", runs: 10, hits: 0 });
  assert.equal(older.changed, false);
  assert.match(older.reason, /not newer/);
  const flaky = await markFixedIfNotReproduced(db, { bucketId: a.bucketId, targetVersion: "next", runs: 10, hits: 3 });
  assert.deepEqual([flaky.status, flaky.changed], ["new", false]);
  assert.equal((await markFixedIfNotReproduced(db, { bucketId: a.bucketId, targetVersion: "next", runs: 10, hits: 0 })).status, "fixed");
  const back = await markFixedIfNotReproduced(db, { bucketId: a.bucketId, targetVersion: "next2", runs: 10, hits: 1 });
  assert.deepEqual([back.status, back.changed], ["regressed", true]);
  await assert.rejects(markFixedIfNotReproduced(db, { bucketId: a.bucketId, targetVersion: "x", runs: 0, hits: 0 }), (e: { code?: string }) => e.code === "FF_ERR_VALIDATION");
  await assert.rejects(markFixedIfNotReproduced(db, { bucketId: "b_nope", targetVersion: "x", runs: 1, hits: 0 }), (e: { code?: string }) => e.code === "FF_ERR_NOT_FOUND");
});

test("first and last seen per target version", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "s", { targetVersion: "v1", hits: 2 });
  await report(db, t.id, c.id, "s", { targetVersion: "v1" });
  await report(db, t.id, c.id, "s", { targetVersion: "v2", hits: 5 });
  const v = await bucketVersions(db, a.bucketId);
  assert.deepEqual(v.map((x) => [x.version, x.reports, x.hits]), [["v1", 2, 3], ["v2", 1, 5]]);
  assert.ok(v[0]!.firstSeen <= v[0]!.lastSeen && v[0]!.lastSeen <= v[1]!.firstSeen);
  const b = await bucket(a.bucketId);
  assert.deepEqual([b.firstSeenVersion, b.lastSeenVersion], ["v1", "v2"]);
});

test("reproduction-rate labels", async () => {
  assert.equal(reproLabel(0, 0), "unknown");
  assert.equal(reproLabel(10, 10), "reliable");
  assert.equal(reproLabel(10, 9), "flaky");
  assert.equal(reproLabel(10, 9, { reliableAt: 0.9 }), "reliable");
  assert.equal(reproLabel(10, 0), "unreproduced");
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "s");
  await recordReproRate(db, a.bucketId, 20, 7);
  const b = await bucket(a.bucketId);
  assert.deepEqual([b.reproRuns, b.reproHits, b.reproLabel], [20, 7, "flaky"]);
});
