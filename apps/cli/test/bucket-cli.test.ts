// `fuzzfarm buckets`, `bucket <id>`, `bucket merge|split|status|note` against
// real PostgreSQL: the same audited actions the dashboard's API calls.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createCampaign, recordCrash, upsertTarget } from "@fuzzfarm/db";
import { runCli, testFarm } from "./helpers";

test("list, show, status, note, merge and split buckets from the command line", async () => {
  const farm = await testFarm();
  try {
    const t = await upsertTarget(farm.db, { name: "cli-target", engine: "input", path: "/x/t.js", version: "v1" });
    const c = await createCampaign(farm.db, { targetId: t.id, engine: "input", config: {}, deadline: new Date(Date.now() + 60_000) });
    const crash = (sig: string, job: string) =>
      recordCrash(farm.db.prisma, { targetId: t.id, campaignId: c.id, jobId: job, ordinal: 0, kind: "uncaught", signature: sig, title: `Error in ${sig}`, frames: [{ fn: sig, file: "t.js" }], message: `Error: ${sig}`, stack: `Error: ${sig}\n    at ${sig} (/x/t.js:1:1)`, artifact: {}, triage: {} });
    const a = await crash("parseA", "j1");
    await crash("parseA", "j2");
    const b = await crash("parseB", "j3");

    const list = await runCli(["buckets", "--json"], farm.env);
    assert.equal(list.code, 0, list.stderr);
    const rows = JSON.parse(list.stdout) as { id: string; count: number; reproducer: string }[];
    assert.deepEqual(rows.map((r) => r.count), [2, 1]);
    assert.equal(rows[0]!.reproducer, `fuzzfarm repro ${a.bucketId}`);

    assert.equal((await runCli(["bucket", "status", a.bucketId, "confirmed"], farm.env)).code, 0);
    assert.equal((await runCli(["bucket", "note", a.bucketId, "seen", "in", "prod"], farm.env)).code, 0);
    const bad = await runCli(["bucket", "status", a.bucketId, "bogus"], farm.env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /FF_ERR_VALIDATION: status must be one of/);

    const merge = await runCli(["bucket", "merge", a.bucketId, b.bucketId], farm.env);
    assert.equal(merge.code, 0, merge.stderr);
    const merged = await farm.db.prisma.crashBucket.findUniqueOrThrow({ where: { id: a.bucketId } });
    assert.equal(merged.count, 3);
    assert.equal(merged.status, "confirmed");
    assert.equal(merged.note, "seen in prod");

    const moved = await farm.db.prisma.crashReport.findFirstOrThrow({ where: { jobId: "j3" } });
    const split = await runCli(["bucket", "split", a.bucketId, moved.id], farm.env);
    assert.equal(split.code, 0, split.stderr);
    const newId = /new bucket (\S+)/.exec(split.stdout)![1]!;
    assert.equal((await farm.db.prisma.crashBucket.findUniqueOrThrow({ where: { id: newId } })).count, 1);

    const show = await runCli(["bucket", a.bucketId], farm.env);
    assert.equal(show.code, 0, show.stderr);
    for (const action of ["created", "status", "note", "merged", "split"]) assert.match(show.stdout, new RegExp(`cli:\\S+: ${action}|system: ${action}`), action);
    const missing = await runCli(["bucket", "nope"], farm.env);
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /FF_ERR_NOT_FOUND: no bucket nope/);
  } finally {
    await farm.close();
  }
});

test("crash text with ESC / OSC / CSI / C1 bytes and bidi overrides is printed as visible escapes, never sent to the terminal raw", async () => {
  const farm = await testFarm();
  try {
    const t = await upsertTarget(farm.db, { name: "tty\u001b]0;pwned\u0007-target", engine: "input", path: "/x/t.js", version: "v1" });
    const c = await createCampaign(farm.db, { targetId: t.id, engine: "input", config: {}, deadline: new Date(Date.now() + 60_000) });
    const evil = "Error: \u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007 \u001b[2J\u001b[H\u009b31m\r\u202egnp.exe";
    const a = await recordCrash(farm.db.prisma, { targetId: t.id, campaignId: c.id, jobId: "j1", ordinal: 0, kind: "uncaught", signature: "tty", title: evil, frames: [], message: evil, stack: `${evil}\n    at f (/x/t.js:1:1)`, artifact: {}, triage: {} });
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;
    for (const args of [["buckets"], ["bucket", a.bucketId], ["status"]]) {
      const r = await runCli(args, farm.env);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!raw.test(r.stdout), `${args.join(" ")} printed a control byte: ${JSON.stringify(r.stdout)}`);
    }
    const show = await runCli(["bucket", a.bucketId], farm.env);
    assert.ok(show.stdout.includes("Error: \\x1b]8;;https://evil.example\\x07click\\x1b]8;;\\x07 \\x1b[2J\\x1b[H\\x9b31m\\x0d\\u202egnp.exe"), show.stdout);
  } finally {
    await farm.close();
  }
});
