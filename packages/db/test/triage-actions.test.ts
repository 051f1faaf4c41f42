// Manual triage against real PostgreSQL: merge, split, status and notes,
// with their audit trail and the routing of later reports.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { createTestDb, type TestDb } from "@fuzzfarm/db/testing";
import { addBucketNote, listBuckets, mergeBuckets, setBucketStatus, splitBucket } from "@fuzzfarm/db";
import { report, setup } from "./triage-helpers";

let db: TestDb;
before(async () => {
  db = await createTestDb();
});
after(async () => {
  await db.close();
});

const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;
const bucket = (id: string) => db.prisma.crashBucket.findUniqueOrThrow({ where: { id } });
const events = (id: string) => db.prisma.bucketEvent.findMany({ where: { bucketId: id }, orderBy: { id: "asc" } });

test("merge moves reports, adds counts, widens first/last seen and audits both sides", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "sig-a", { hits: 3 });
  await report(db, t.id, c.id, "sig-a", { hits: 2 });
  const b = await report(db, t.id, c.id, "sig-b", { hits: 4, targetVersion: "v0" });
  const into = await report(db, t.id, c.id, "sig-into");
  await mergeBuckets(db, { into: into.bucketId, from: [a.bucketId, b.bucketId], actor: "alice" });

  const target = await bucket(into.bucketId);
  assert.equal(target.count, 1 + 5 + 4);
  assert.equal(await db.prisma.crashReport.count({ where: { bucketId: into.bucketId } }), 4);
  const srcA = await bucket(a.bucketId);
  assert.equal(srcA.mergedIntoId, into.bucketId);
  assert.equal(srcA.count, 0);
  assert.equal(await db.prisma.crashReport.count({ where: { bucketId: a.bucketId } }), 0);
  assert.ok(target.firstSeen <= srcA.firstSeen, "first seen widened to the earliest source");
  assert.equal(target.firstSeenVersion, "v0", "the target had no version; the source's is kept");

  const te = (await events(into.bucketId)).filter((e) => e.action === "merged");
  assert.equal(te.length, 1);
  assert.equal(te[0]!.actor, "alice");
  assert.equal((te[0]!.detail as { countAdded: number }).countAdded, 9);
  const se = (await events(b.bucketId)).filter((e) => e.action === "merged");
  assert.deepEqual(se.map((e) => [e.actor, (e.detail as { into: string }).into]), [["alice", into.bucketId]]);

  const listed = await listBuckets(db, { targetId: t.id });
  assert.deepEqual(listed.map((x) => x.id), [into.bucketId], "merged-away buckets leave the list");
});

test("merge refuses itself, other targets, merged-away buckets and unknown ids", async () => {
  const { t, c } = await setup(db);
  const other = await setup(db);
  const a = await report(db, t.id, c.id, "a");
  const b = await report(db, t.id, c.id, "b");
  const d = await report(db, t.id, c.id, "d");
  const x = await report(db, other.t.id, other.c.id, "x");
  await assert.rejects(mergeBuckets(db, { into: a.bucketId, from: [a.bucketId], actor: "u" }), code("FF_ERR_CONFLICT"));
  await assert.rejects(mergeBuckets(db, { into: a.bucketId, from: [x.bucketId], actor: "u" }), code("FF_ERR_CONFLICT"));
  await assert.rejects(mergeBuckets(db, { into: a.bucketId, from: ["b_nope"], actor: "u" }), code("FF_ERR_NOT_FOUND"));
  await assert.rejects(mergeBuckets(db, { into: "b_nope", from: [a.bucketId], actor: "u" }), code("FF_ERR_NOT_FOUND"));
  await assert.rejects(mergeBuckets(db, { into: a.bucketId, from: [], actor: "u" }), code("FF_ERR_VALIDATION"));
  await mergeBuckets(db, { into: a.bucketId, from: [b.bucketId], actor: "u" });
  await assert.rejects(mergeBuckets(db, { into: b.bucketId, from: [d.bucketId], actor: "u" }), code("FF_ERR_CONFLICT"), "into a merged-away bucket");
  await assert.rejects(mergeBuckets(db, { into: d.bucketId, from: [b.bucketId], actor: "u" }), code("FF_ERR_CONFLICT"), "from a merged-away bucket");
  assert.equal((await bucket(a.bucketId)).count, 2, "failed merges changed nothing");
});

test("later reports of a merged-away signature land in the merge target, also through a chain of merges", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "sig-a");
  const b = await report(db, t.id, c.id, "sig-b");
  const u = await report(db, t.id, c.id, "sig-u");
  await mergeBuckets(db, { into: b.bucketId, from: [a.bucketId], actor: "u" });
  const later = await report(db, t.id, c.id, "sig-a", { hits: 2 });
  assert.equal(later.bucketId, b.bucketId);
  assert.equal(later.newBucket, false);
  assert.equal((await bucket(b.bucketId)).count, 4);
  assert.equal((await bucket(a.bucketId)).count, 0);

  await mergeBuckets(db, { into: u.bucketId, from: [b.bucketId], actor: "u" });
  assert.equal((await report(db, t.id, c.id, "sig-a")).bucketId, u.bucketId);
  assert.equal((await report(db, t.id, c.id, "sig-b")).bucketId, u.bucketId);
  assert.equal((await bucket(a.bucketId)).mergedIntoId, u.bucketId, "chains are flattened");
  assert.equal((await bucket(u.bucketId)).count, 1 + 4 + 2);
});

test("a report that joined a bucket by similarity is routed by its own signature after a merge", async () => {
  const { t, c } = await setup(db);
  const host = await report(db, t.id, c.id, "host");
  await report(db, t.id, c.id, "host", { triage: { rule: "similar", ownSignature: "own-x" } });
  const into = await report(db, t.id, c.id, "into");
  await mergeBuckets(db, { into: into.bucketId, from: [host.bucketId], actor: "u" });
  const routes = await db.prisma.bucketRoute.findMany({ where: { targetId: t.id }, orderBy: { signature: "asc" } });
  assert.deepEqual(routes.map((r) => [r.signature, r.bucketId, r.reason]), [["host", into.bucketId, "merge"], ["own-x", into.bucketId, "merge"]]);
  // own-x has no bucket of its own: a later report of it keyed by its own signature follows the merge.
  assert.equal((await report(db, t.id, c.id, "own-x")).bucketId, into.bucketId);
});

test("split moves reports and their hits to a new bucket; later reports of the split-out signature follow", async () => {
  const { t, c } = await setup(db);
  const src = await report(db, t.id, c.id, "base", { hits: 5 });
  const sim1 = await report(db, t.id, c.id, "base", { hits: 2, targetVersion: "v1", triage: { rule: "similar", ownSignature: "other" } });
  const sim2 = await report(db, t.id, c.id, "base", { hits: 1, targetVersion: "v2", triage: { rule: "similar", ownSignature: "other" } });
  const reports = await db.prisma.crashReport.findMany({ where: { bucketId: src.bucketId }, orderBy: { createdAt: "asc" } });
  const splitIds = reports.filter((r) => (r.triage as { ownSignature?: string }).ownSignature === "other").map((r) => r.id);
  assert.equal(sim1.bucketId, src.bucketId);
  assert.equal(sim2.bucketId, src.bucketId);

  const { newBucketId } = await splitBucket(db, { bucketId: src.bucketId, reportIds: splitIds, actor: "bob", title: "the other crash" });
  const nb = await bucket(newBucketId);
  assert.equal(nb.count, 3);
  assert.equal(nb.title, "the other crash");
  assert.equal(nb.signature, "other", "keyed by the split-out own signature");
  assert.equal(nb.firstSeenVersion, "v1");
  assert.equal(nb.lastSeenVersion, "v2");
  assert.equal((await bucket(src.bucketId)).count, 5);
  assert.equal(await db.prisma.crashReport.count({ where: { bucketId: newBucketId } }), 2);
  for (const id of [src.bucketId, newBucketId]) {
    const e = (await events(id)).filter((x) => x.action === "split");
    assert.equal(e.length, 1);
    assert.equal(e[0]!.actor, "bob");
    assert.deepEqual((e[0]!.detail as { routed: string[] }).routed, ["other"]);
  }

  // The coordinator still sees it as similar to "base", but its own signature was split out.
  const again = await report(db, t.id, c.id, "base", { triage: { rule: "similar", ownSignature: "other" } });
  assert.equal(again.bucketId, newBucketId);
  assert.equal((await report(db, t.id, c.id, "base")).bucketId, src.bucketId, "the base signature stays");
  assert.equal((await bucket(newBucketId)).count, 4);
  assert.equal((await bucket(src.bucketId)).count, 6);
});

test("splitting every report of a signature out of a merge target routes that signature to the new bucket", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "sa");
  const b = await report(db, t.id, c.id, "sb");
  await mergeBuckets(db, { into: a.bucketId, from: [b.bucketId], actor: "u" });
  const bReports = await db.prisma.crashReport.findMany({ where: { signature: "sb", bucketId: a.bucketId } });
  const { newBucketId } = await splitBucket(db, { bucketId: a.bucketId, reportIds: bReports.map((r) => r.id), actor: "u" });
  assert.match((await bucket(newBucketId)).signature, /^sb~split-/, "sb still keys the merged-away row, so the new key is derived");
  assert.equal((await report(db, t.id, c.id, "sb")).bucketId, newBucketId, "the split decision replaces the merge route");
  assert.equal((await report(db, t.id, c.id, "sa")).bucketId, a.bucketId);
});

test("split validates its input", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "a");
  await report(db, t.id, c.id, "a");
  const b = await report(db, t.id, c.id, "b");
  const aReports = await db.prisma.crashReport.findMany({ where: { bucketId: a.bucketId } });
  const bReport = await db.prisma.crashReport.findFirstOrThrow({ where: { bucketId: b.bucketId } });
  await assert.rejects(splitBucket(db, { bucketId: a.bucketId, reportIds: [], actor: "u" }), code("FF_ERR_VALIDATION"));
  await assert.rejects(splitBucket(db, { bucketId: a.bucketId, reportIds: [bReport.id], actor: "u" }), code("FF_ERR_CONFLICT"));
  await assert.rejects(splitBucket(db, { bucketId: a.bucketId, reportIds: aReports.map((r) => r.id), actor: "u" }), code("FF_ERR_CONFLICT"));
  await assert.rejects(splitBucket(db, { bucketId: a.bucketId, reportIds: ["nope"], actor: "u" }), code("FF_ERR_NOT_FOUND"));
  await assert.rejects(splitBucket(db, { bucketId: "b_nope", reportIds: [bReport.id], actor: "u" }), code("FF_ERR_NOT_FOUND"));
  assert.equal((await bucket(a.bucketId)).count, 2);
});

test("status and notes are audited with actor and detail", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "a");
  assert.deepEqual(await setBucketStatus(db, { bucketId: a.bucketId, status: "confirmed", actor: "carol" }), { from: "new", to: "confirmed" });
  await setBucketStatus(db, { bucketId: a.bucketId, status: "confirmed", actor: "carol" });
  await setBucketStatus(db, { bucketId: a.bucketId, status: "fixed", actor: "carol", version: "v9" });
  await addBucketNote(db, { bucketId: a.bucketId, note: "  race between close and timeout  ", actor: "dave" });
  const b = await bucket(a.bucketId);
  assert.equal(b.status, "fixed");
  assert.equal(b.fixedVersion, "v9");
  assert.equal(b.note, "race between close and timeout");
  const ev = (await events(a.bucketId)).filter((e) => e.action !== "created");
  assert.deepEqual(
    ev.map((e) => [e.action, e.actor, e.detail]),
    [
      ["status", "carol", { from: "new", to: "confirmed" }],
      ["status", "carol", { from: "confirmed", to: "fixed", version: "v9" }],
      ["note", "dave", { note: "race between close and timeout" }],
    ],
    "an unchanged status writes no event",
  );
  await assert.rejects(setBucketStatus(db, { bucketId: a.bucketId, status: "done" as never, actor: "u" }), code("FF_ERR_VALIDATION"));
  await assert.rejects(setBucketStatus(db, { bucketId: "b_nope", status: "new", actor: "u" }), code("FF_ERR_NOT_FOUND"));
  await assert.rejects(addBucketNote(db, { bucketId: a.bucketId, note: "   ", actor: "u" }), code("FF_ERR_VALIDATION"));
  await assert.rejects(addBucketNote(db, { bucketId: "b_nope", note: "x", actor: "u" }), code("FF_ERR_NOT_FOUND"));
});
