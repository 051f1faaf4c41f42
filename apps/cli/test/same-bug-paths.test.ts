// One "same bug" rule on every path (issue 15, item 3). Real findings, as
// the engines produce them (a node crash run by engine-node, input-engine
// crashes of examples/input/multi-codec.ts, wasm oracle violations of the
// wasm engine with an injected fault), are classified into buckets in real
// PostgreSQL by the coordinator's classifyFindings + applyResult. Then other
// reports of the same and of different bugs go through the four paths that
// decide "is this run that bucket's bug?": classification, replay counting
// (countReplayHits, what applyMaintenanceResult counts), `fuzzfarm repro`'s
// check and a minimize job's check (the payload the coordinator builds,
// parsed by the protocol schema, judged by the worker). Every path must give
// the same answer for every (report, bucket) pair, and that answer must be
// the expected one. A path on its own rule fails here: signature-only
// minimization misses the similar report, minimization relative to the
// target's directory matches nothing, and a replay or repro check that looks
// at the one bucket alone counts the report that classification files in a
// closer bucket.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyResult, createCampaign, insertJobs, upsertTarget } from "@fuzzfarm/db";
import { createTestDb, type TestDb } from "@fuzzfarm/db/testing";
import { classifyFindings, countReplayHits, sameBugRule } from "@fuzzfarm/coordinator";
import { execute } from "@fuzzfarm/engine-node";
import { inputEngine } from "@fuzzfarm/engine-input";
import { wasmEngine } from "@fuzzfarm/engine-wasm";
import { Finding, parseJob, publishableResult, type JobFor, type Outcome } from "@fuzzfarm/protocol";
import { minimizeCheck } from "@fuzzfarm/worker";
import { REPO_ROOT } from "../src/context";
import { reproducedBucket } from "../src/commands/repro";

/** The coordinator's root in this test: the node program lives under it, in app/. */
const ROOT = mkdtempSync(join(tmpdir(), "ffsame-"));
const APP = join(ROOT, "app");
const CODEC = join(REPO_ROOT, "examples/input/multi-codec.ts");
const MSG = "store conflict: lost update while writing the user record";
const MSGS = `${MSG}s`;

let db: TestDb;
let targetId = "";
let campaignId = "";
let job = 0;
const workDir = mkdtempSync(join(tmpdir(), "ffsame-work-"));
const ctx = { signal: new AbortController().signal, workDir };

/** The node program: `index.js <main1|main2> <h1|h2> <put|del> <message>` throws from store.<op>. */
function writeApp(pad = 0): void {
  mkdirSync(join(APP, "lib"), { recursive: true });
  const blank = "\n".repeat(pad);
  writeFileSync(join(APP, "lib/store.js"), `${blank}"use strict";\nexports.put = function put(msg) {\n  throw new Error(msg);\n};\nexports.del = function del(msg) {\n  throw new Error(msg);\n};\n`);
  writeFileSync(join(APP, "lib/handlers.js"), `"use strict";\nconst store = require("./store");\nexports.h1 = function h1(op, msg) {\n  store[op](msg);\n};\nexports.h2 = function h2(op, msg) {\n  store[op](msg);\n};\n`);
  writeFileSync(
    join(APP, "index.js"),
    `"use strict";\nconst handlers = require("./lib/handlers");\nconst [entry, handler, op, msg] = process.argv.slice(2);\nfunction main1() {\n  handlers[handler](op, msg);\n}\nfunction main2() {\n  handlers[handler](op, msg);\n}\n({ main1, main2 })[entry]();\n`,
  );
}

async function nodeCrash(entry: string, handler: string, op: string, msg: string): Promise<Finding> {
  const ex = await execute({ script: join(APP, "index.js"), args: [entry, handler, op, msg], strategy: "none", params: {}, seed: 0, timeoutMs: 10_000 });
  assert.ok(ex.outcome.kind === "crash", `the node program did not crash: ${JSON.stringify(ex.outcome)}`);
  return ex.outcome;
}

async function inputCrash(bytes: number[]): Promise<Finding> {
  const o = await inputEngine.reproduce({ path: CODEC }, { engine: "input", input: Buffer.from(bytes).toString("base64"), options: {} }, ctx);
  assert.ok(o.kind === "crash", `multi-codec did not crash on ${bytes}: ${JSON.stringify(o)}`);
  return o;
}

/** Oracle findings of one wasm job on the "small" generator with a narrowing fault: program seedStart, seedStart+1... */
async function wasmFindings(seedStart: number, runs: number): Promise<Finding[]> {
  const j = parseJob({
    engine: "wasm", jobId: `w${seedStart}`, campaignId: "c", target: { name: "small", path: "generator:small" },
    budget: { runs, seconds: 60 }, options: { fault: { kind: "narrow" }, runsPerProgram: 4, seedStart },
  }) as JobFor<"wasm">;
  const r = await wasmEngine.run(j, ctx);
  assert.equal(r.error, undefined);
  return (r.findings ?? []).map((f) => Finding.parse(f));
}

const resultOf = (findings: Finding[], jobId: string) =>
  publishableResult({ execs: findings.length, busyMs: 1, findings }, { jobId, campaignId, workerId: "w", engine: "node", kind: "fuzz", startedAt: new Date().toISOString(), finishedAt: new Date().toISOString() });

/** Classify and record one report as a fuzz job's result would be; returns the bucket it went to. */
async function record(f: Finding): Promise<string> {
  const jobId = `j${job++}`;
  await insertJobs(db, [{ id: jobId, campaignId, kind: "fuzz", payload: {} }]);
  const r = resultOf([f], jobId);
  const classified = await classifyFindings(db, r, targetId, ROOT);
  await applyResult(db, r, { targetId, classified });
  const row = await db.prisma.crashReport.findFirstOrThrow({ where: { jobId }, select: { bucketId: true } });
  return row.bucketId;
}

/** The four paths' answers to "is `f` the bug of bucket `bucketId`?". */
async function answers(f: Finding, bucketId: string) {
  const bucket = await db.prisma.crashBucket.findUniqueOrThrow({ where: { id: bucketId } });
  const [classified] = await classifyFindings(db, resultOf([f], "probe"), targetId, ROOT);
  const rule = await sameBugRule(db, bucketId, ROOT);
  assert.ok(rule);
  const minimizeJob = parseJob({
    engine: f.reproducer.engine, kind: "minimize", jobId: `minimize-${bucketId}`, campaignId, target: { name: "t", path: join(APP, "index.js") },
    budget: { runs: 10, seconds: 10 }, options: {}, bucketId, reproducer: f.reproducer, sameBug: rule,
  });
  assert.equal(minimizeJob.kind, "minimize");
  if (minimizeJob.kind !== "minimize") return assert.fail("parsed as another kind");
  assert.ok(minimizeJob.sameBug, "the minimize payload keeps its rule through the schema");
  return {
    classification: classified!.signature === bucket.signature,
    replay: (await countReplayHits(db, { findings: [f] }, bucketId, ROOT)) === 1,
    repro: reproducedBucket(f as Outcome, rule),
    minimize: minimizeCheck(minimizeJob.sameBug)(f),
  };
}

const seeds = new Map<string, string>(); // seed report name -> bucket id
const probes = new Map<string, { f: Finding; expect: string | null }>();

before(async () => {
  db = await createTestDb();
  const t = await upsertTarget(db, { name: `same-bug-${process.pid}`, engine: "node", path: join(APP, "index.js") });
  targetId = t.id;
  campaignId = (await createCampaign(db, { targetId, engine: "node", config: {}, deadline: new Date(Date.now() + 60_000) })).id;
  writeApp();
  const [wasm1, wasm2] = [await wasmFindings(1001, 8), await wasmFindings(1002, 4)];
  const schedule = (fs: Finding[], shape: string) => fs.find((f) => f.kind === "oracle" && f.oracle === "schedule" && f.detail.shape === shape);
  const history = (fs: Finding[], shape: string) => fs.find((f) => f.kind === "oracle" && f.oracle === "history" && f.detail.shape === shape);
  const shapes = [...new Set(wasm1.map((f) => f.detail.shape as string))];
  assert.equal(shapes.length, 2, `two wasm programs with findings: ${JSON.stringify(wasm1.map((f) => f.message))}`);
  const [s1, s2] = shapes as [string, string];
  // seed reports, recorded in this order (each founds its bucket)
  const seedReports: [string, Finding | undefined][] = [
    ["A: put via h1 from main1", await nodeCrash("main1", "h1", "put", MSG)],
    ["B: del via h1 from main1, same message", await nodeCrash("main1", "h1", "del", MSG)],
    ["C: put via h2 from main2", await nodeCrash("main2", "h2", "put", MSGS)],
    ["I: encodeInt 0x30", await inputCrash([0x45, 0x30])],
    ["W1: schedule oracle, program 1", schedule(wasm1, s1)],
    ["W2: schedule oracle, program 2", schedule(wasm1, s2)],
  ];
  for (const [name, f] of seedReports) {
    assert.ok(f, `no finding for ${name}`);
    seeds.set(name, await record(f));
  }
  assert.equal(new Set(seeds.values()).size, seedReports.length, "every seed report founded its own bucket");
  // probes: other runs, same and different bugs
  probes.set("A again, every line moved by 7", { f: (writeApp(7), await nodeCrash("main1", "h1", "put", MSG)), expect: "A: put via h1 from main1" });
  writeApp();
  probes.set("put via h1 from main2 (similar to A)", { f: await nodeCrash("main2", "h1", "put", MSG), expect: "A: put via h1 from main1" });
  probes.set("put via h2 from main1, C's message (similar to A, closer to C)", { f: await nodeCrash("main1", "h2", "put", MSGS), expect: "C: put via h2 from main2" });
  probes.set("del via h1 from main1 (B again)", { f: await nodeCrash("main1", "h1", "del", MSG), expect: "B: del via h1 from main1, same message" });
  probes.set("del via h2 from main2 (a new bug)", { f: await nodeCrash("main2", "h2", "del", "nothing like the others"), expect: null });
  probes.set("encodeInt 0x77 (I again, other byte in the message)", { f: await inputCrash([0x45, 0x77]), expect: "I: encodeInt 0x30" });
  probes.set("encodeStr 0x30 (same message, same file, another function)", { f: await inputCrash([0x65, 0x30]), expect: null });
  const again = schedule(wasm2, s2);
  assert.ok(again, `the second wasm job found program 2's schedule violation again: ${JSON.stringify(wasm2.map((f) => f.message))}`);
  probes.set("program 2's schedule oracle from another job", { f: again, expect: "W2: schedule oracle, program 2" });
  probes.set("program 2's history oracle (another oracle)", { f: history(wasm1, s2)!, expect: null });
});

after(async () => {
  await db?.close();
  rmSync(ROOT, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });
});

test("every path gives classification's answer for every report and bucket, and it is the expected one", async () => {
  const rows: string[] = [];
  for (const [probe, { f, expect }] of probes) {
    assert.ok(f, `no finding for ${probe}`);
    for (const [seed, bucketId] of seeds) {
      const a = await answers(f, bucketId);
      const want = expect === seed;
      rows.push(`${probe} | ${seed}: ${JSON.stringify(a)}`);
      assert.deepEqual(a, { classification: want, replay: want, repro: want, minimize: want }, `${probe} as ${seed}\n${rows.join("\n")}`);
    }
  }
  // every bucket is hit by some probe and missed by others: the table is not all one answer
  assert.ok(rows.some((r) => r.includes('"classification":true')) && rows.some((r) => r.includes('"classification":false')));
});

test("a replay job's result counts only the bucket's bug (the mixed replay of bucket A)", async () => {
  const a = seeds.get("A: put via h1 from main1")!;
  const all = [...probes.values()].map((p) => p.f);
  const want = [...probes.values()].filter((p) => p.expect === "A: put via h1 from main1").length;
  assert.equal(want, 2);
  assert.equal(await countReplayHits(db, { findings: all }, a, ROOT), want);
});
