// Triage decisions racing with reporters, against real PostgreSQL: every
// report ends up either moved by a merge/split or routed by it, and counts
// stay exact.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { createTestDb, type TestDb } from "@fuzzfarm/db/testing";
import { mergeBuckets, splitBucket } from "@fuzzfarm/db";
import { pool, report, setup } from "./triage-helpers";

let db: TestDb;
before(async () => {
  db = await createTestDb();
});
after(async () => {
  await db.close();
});

const sumCounts = async (targetId: string) => (await db.prisma.crashBucket.findMany({ where: { targetId } })).reduce((n, b) => n + b.count, 0);

test("a merge in the middle of 60 concurrent reports of the merged signature strands none of them", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "sig-a");
  const into = await report(db, t.id, c.id, "sig-into");
  let merged = false;
  const recs = await pool(60, 12, async (i) => {
    if (i === 20) await mergeBuckets(db, { into: into.bucketId, from: [a.bucketId], actor: "u" }).then(() => (merged = true));
    const afterMerge = merged;
    return { ...(await report(db, t.id, c.id, "sig-a", { hits: 2 })), afterMerge };
  });
  assert.ok(merged);
  assert.equal(await db.prisma.crashReport.count({ where: { bucketId: a.bucketId } }), 0, "no report left in the merged-away bucket");
  const src = await db.prisma.crashBucket.findUniqueOrThrow({ where: { id: a.bucketId } });
  const dst = await db.prisma.crashBucket.findUniqueOrThrow({ where: { id: into.bucketId } });
  assert.equal(src.count, 0);
  assert.equal(dst.count, 1 + 1 + 60 * 2);
  assert.equal(await db.prisma.crashReport.count({ where: { bucketId: into.bucketId } }), 62);
  const late = recs.filter((r) => r.afterMerge);
  assert.ok(late.length > 0);
  assert.ok(late.every((r) => r.bucketId === into.bucketId), "reports started after the merge are routed");
  assert.ok(recs.filter((r) => !r.afterMerge).every((r) => r.bucketId === a.bucketId || r.bucketId === into.bucketId));
});

test("a split in the middle of concurrent reports keeps counts exact and routes the rest", async () => {
  const { t, c } = await setup(db);
  const base = await report(db, t.id, c.id, "base");
  const other = { triage: { rule: "similar", ownSignature: "other" } };
  for (let i = 0; i < 3; i++) await report(db, t.id, c.id, "base", other);
  const ids = (await db.prisma.crashReport.findMany({ where: { bucketId: base.bucketId, signature: "base" } }))
    .filter((r) => (r.triage as { ownSignature?: string }).ownSignature === "other")
    .map((r) => r.id);
  let newBucketId = "";
  const recs = await pool(40, 8, async (i) => {
    if (i === 10) newBucketId = (await splitBucket(db, { bucketId: base.bucketId, reportIds: ids, actor: "u" })).newBucketId;
    const afterSplit = newBucketId !== "";
    const r = await report(db, t.id, c.id, "base", i % 2 ? other : {});
    return { ...r, afterSplit, other: i % 2 === 1 };
  });
  assert.ok(newBucketId);
  assert.equal(await sumCounts(t.id), 44);
  for (const b of [base.bucketId, newBucketId]) {
    const n = (await db.prisma.crashReport.findMany({ where: { bucketId: b } })).reduce((s, r) => s + r.hits, 0);
    assert.equal((await db.prisma.crashBucket.findUniqueOrThrow({ where: { id: b } })).count, n, "count = sum of its reports' hits");
  }
  const late = recs.filter((r) => r.afterSplit);
  assert.ok(late.some((r) => r.other) && late.some((r) => !r.other), "both kinds were reported after the split");
  assert.ok(late.every((r) => r.bucketId === (r.other ? newBucketId : base.bucketId)), "reports started after the split follow it");
});

test("20 concurrent reporters of a routed signature land in the route's bucket with the exact count", async () => {
  const { t, c } = await setup(db);
  const a = await report(db, t.id, c.id, "a");
  const b = await report(db, t.id, c.id, "b");
  await mergeBuckets(db, { into: b.bucketId, from: [a.bucketId], actor: "u" });
  const recs = await Promise.all(Array.from({ length: 20 }, () => report(db, t.id, c.id, "a")));
  assert.ok(recs.every((r) => r.bucketId === b.bucketId && !r.newBucket));
  assert.equal((await db.prisma.crashBucket.findUniqueOrThrow({ where: { id: b.bucketId } })).count, 22);
});
