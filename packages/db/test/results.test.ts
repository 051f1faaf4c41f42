// Against real PostgreSQL: idempotent result application and concurrent crash recording.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { createTestDb, type TestDb } from "@fuzzfarm/db/testing";
import { applyResult, createCampaign, insertJobs, recordCrash, upsertTarget } from "@fuzzfarm/db";
import { parseResult, type Finding } from "@fuzzfarm/protocol";

let db: TestDb;
before(async () => {
  db = await createTestDb();
});
after(async () => {
  await db.close();
});

const finding: Finding = {
  kind: "crash",
  crashKind: "uncaught",
  message: "Error: boom",
  stack: "Error: boom\n    at fuzz (/x/t.js:3:9)",
  reproducer: { engine: "input", input: Buffer.from("FUZZ").toString("base64"), options: {} },
  detail: {},
};

async function setup() {
  const t = await upsertTarget(db, { name: `t-${Math.random()}`, engine: "input", path: "/x/t.js" });
  const c = await createCampaign(db, { targetId: t.id, engine: "input", config: {}, deadline: new Date(Date.now() + 60_000) });
  return { t, c };
}

test("a result delivered twice is applied once", async () => {
  const { t, c } = await setup();
  await insertJobs(db, [{ id: `${c.id}-0`, campaignId: c.id, kind: "fuzz", payload: {} }]);
  const result = parseResult({
    jobId: `${c.id}-0`, campaignId: c.id, workerId: "w1", engine: "input", startedAt: new Date().toISOString(), finishedAt: new Date().toISOString(),
    execs: 1000, busyMs: 50, features: ["s:t.js:0", "s:t.js:1", "b:t.js:0:1"], featureTotal: 10,
    corpus: [
      { data: Buffer.from("A").toString("base64"), features: ["s:t.js:1"] },
      { data: Buffer.from("B").toString("base64"), features: ["s:t.js:1"] },
      { data: Buffer.from("C").toString("base64"), features: ["b:t.js:0:1"] },
    ],
    findings: [finding],
  });
  const classified = [{ finding, kind: "uncaught", signature: "uncaught|fuzz@t.js", title: "uncaught Error in fuzz", frames: [], triage: {}, hits: 7 }];
  const first = await applyResult(db, result, { targetId: t.id, classified });
  assert.equal(first.duplicate, false);
  assert.equal(first.newCoverage, 3);
  assert.equal(first.newCorpus, 2, "B brought nothing A had not claimed");
  assert.equal(first.newBuckets.length, 1);
  const second = await applyResult(db, result, { targetId: t.id, classified });
  assert.equal(second.duplicate, true);
  const camp = await db.prisma.campaign.findUniqueOrThrow({ where: { id: c.id } });
  assert.equal(camp.execs, 1000n);
  assert.equal(camp.corpusSize, 2);
  assert.equal(camp.covered, 3);
  const buckets = await db.prisma.crashBucket.findMany({ where: { targetId: t.id } });
  assert.equal(buckets.length, 1);
  assert.equal(buckets[0]!.count, 7);
});

test("20 concurrent reporters of the same new crash make one bucket with the exact count", async () => {
  const { t, c } = await setup();
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      recordCrash(db.prisma, {
        targetId: t.id, campaignId: c.id, jobId: `${c.id}-r${i}`, ordinal: 0, kind: "uncaught", signature: "uncaught|same",
        title: "same", frames: [], message: "m", stack: "s", artifact: {}, triage: {},
      }),
    ),
  );
  const buckets = await db.prisma.crashBucket.findMany({ where: { targetId: t.id } });
  assert.equal(buckets.length, 1);
  assert.equal(buckets[0]!.count, 20);
  assert.equal(await db.prisma.crashReport.count({ where: { bucketId: buckets[0]!.id } }), 20);
});

test("crash text with NUL bytes (from fuzzed inputs) is stored, not rejected by PostgreSQL", async () => {
  const { t, c } = await setup();
  await insertJobs(db, [{ id: `${c.id}-nul`, campaignId: c.id, kind: "fuzz", payload: {} }]);
  const nul: Finding = { ...finding, message: "Error: bad \u0000 byte", stack: "Error: bad \u0000 byte\n    at fuzz (/x/t.js:3:9)" };
  const result = parseResult({
    jobId: `${c.id}-nul`, campaignId: c.id, workerId: "w1", engine: "input", startedAt: new Date().toISOString(), finishedAt: new Date().toISOString(),
    execs: 1, busyMs: 1, features: ["s:t.js:\u00000"], corpus: [{ data: "AA==", features: ["s:t.js:\u00000"], strategy: { note: "\u0000" } }], findings: [nul],
  });
  const classified = [{ finding: nul, kind: "uncaught", signature: "uncaught|\u0000", title: "bad \u0000", frames: [{ fn: "\u0000" }], triage: { m: "\u0000" }, hits: 1 }];
  const s = await applyResult(db, result, { targetId: t.id, classified });
  assert.equal(s.newBuckets.length, 1);
  const rep = await db.prisma.crashReport.findFirstOrThrow({ where: { bucketId: s.newBuckets[0] } });
  assert.equal(rep.message, "Error: bad \uFFFD byte");
  assert.equal(rep.input?.length, 4, "input bytes kept as they are");
});
