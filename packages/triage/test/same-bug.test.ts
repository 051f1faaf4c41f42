// The one "same bug" rule (matchesBucket / isSameBug): what joins a bucket
// and what does not, on stacks as node prints them. The same reports go
// through every farm path in apps/cli/test/same-bug-paths.test.ts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Finding } from "@fuzzfarm/protocol";
import { FIXTURES } from "./check-fixture";
import {
  bucketCandidate,
  chooseBucket,
  crashState,
  findingAsBucket,
  isSameBug,
  matchesBucket,
  stateAsBucket,
  type BucketCandidate,
} from "../src/index";

const root = "/srv/app";

/** An uncaught Error thrown at `fns[0]`, called through the rest, as node prints it; `shift` moves every line. */
function thrown(message: string, fns: [string, string][], shift = 0, at = root): Finding {
  const frames = fns.map(([fn, file], i) => `    at ${fn} (${at}/${file}:${10 + shift + i}:${5 + i})`);
  const stack = [`Error: ${message}`, ...frames, "    at Module._compile (node:internal/modules/cjs/loader:1521:14)"].join("\n");
  return Finding.parse({ kind: "crash", crashKind: "uncaught", message: `Error: ${message}`, stack, reproducer: { engine: "node", options: {} }, detail: { exitCode: 1 } });
}

const MSG = "store conflict: lost update while writing the user record";
const MSGS = "store conflict: lost update while writing the user records";
const A = thrown(MSG, [["put", "lib/store.js"], ["h1", "lib/handlers.js"], ["main1", "index.js"]]);
const C = thrown(MSGS, [["put", "lib/store.js"], ["h2", "lib/handlers.js"], ["main2", "index.js"]]);
const B = thrown(MSG, [["del", "lib/store.js"], ["h1", "lib/handlers.js"], ["main1", "index.js"]]);
const buckets: BucketCandidate[] = [findingAsBucket(A, "A", { rootDir: root }), findingAsBucket(B, "B", { rootDir: root }), findingAsBucket(C, "C", { rootDir: root })];
const [bA, bB, bC] = buckets as [BucketCandidate, BucketCandidate, BucketCandidate];

test("the three seed reports are three buckets under classification", () => {
  // what classification did when they arrived in this order
  assert.equal(chooseBucket(crashState(B, { rootDir: root }), [bA]).bucketId, null, "same message, other throwing function: another bug");
  assert.equal(chooseBucket(crashState(C, { rootDir: root }), [bA, bB]).bucketId, null, "same throw site, other callers: another bug");
});

test("a report differing only in line and column numbers is the same bug", () => {
  const moved = thrown(MSG, [["put", "lib/store.js"], ["h1", "lib/handlers.js"], ["main1", "index.js"]], 37);
  assert.notEqual(moved.stack, A.stack);
  assert.equal(isSameBug(moved, bA, { rootDir: root, others: buckets }), true);
});

test("the same message from another function in the same file is another bug", () => {
  const del = thrown(MSG, [["del", "lib/store.js"], ["h1", "lib/handlers.js"], ["main1", "index.js"]], 3);
  assert.equal(isSameBug(del, bA, { rootDir: root, others: buckets }), false);
  assert.equal(isSameBug(del, bB, { rootDir: root, others: buckets }), true);
});

test("similar (same throw site, one caller changed) joins the bucket; when another bucket is closer it joins that one", () => {
  const viaMain2 = thrown(MSG, [["put", "lib/store.js"], ["h1", "lib/handlers.js"], ["main2", "index.js"]]);
  assert.equal(isSameBug(viaMain2, bA, { rootDir: root, others: buckets }), true);
  assert.equal(isSameBug(viaMain2, bC, { rootDir: root, others: buckets }), false);
  // similar to A on its own, but C (same message, same caller) is closer: classification files it in C
  const r = thrown(MSGS, [["put", "lib/store.js"], ["h2", "lib/handlers.js"], ["main1", "index.js"]]);
  const s = crashState(r, { rootDir: root });
  assert.equal(matchesBucket(s, bA), true, "alone, A would take it");
  assert.equal(chooseBucket(s, buckets).bucketId, "C");
  assert.equal(matchesBucket(s, bA, buckets), false);
  assert.equal(matchesBucket(s, bC, buckets), true);
  // the bucket among its own others changes nothing
  assert.equal(matchesBucket(s, bC, [bC]), matchesBucket(s, bC));
});

test("paths count relative to the root the bucket was classified with", () => {
  const elsewhere = thrown(MSG, [["put", "lib/store.js"], ["h1", "lib/handlers.js"], ["main1", "index.js"]], 0, "/opt/other");
  assert.equal(isSameBug(elsewhere, bA, { rootDir: "/opt/other", others: buckets }), true, "same files under another checkout");
  // the worker's old root (the target's directory) gives other keys: no match at all
  assert.equal(isSameBug(A, bA, { rootDir: `${root}/lib`, others: buckets }), false);
});

test("kinds never mix; a run that did not fail is never the bug", () => {
  const rejection = Finding.parse({ ...A, crashKind: "rejection" });
  assert.equal(isSameBug(rejection, bA, { rootDir: root }), false);
  assert.equal(isSameBug({ kind: "ok" }, bA, { rootDir: root }), false);
});

test("oracle findings with a program shape: the shape decides, the message does not", () => {
  const oracle = (shape: string, message: string) =>
    Finding.parse({ kind: "oracle", oracle: "history", message, stack: "", reproducer: { engine: "wasm", options: {} }, detail: { oracle: "history", shape } });
  const w = findingAsBucket(oracle("T0[rmw x] T1[rmw x]", "final x = 1, expected 2"), "W", { rootDir: root });
  assert.equal(isSameBug(oracle("T0[rmw x] T1[rmw x]", "final x = 3, expected 4"), w, { rootDir: root }), true);
  assert.equal(isSameBug(oracle("T0[rmw x] T1[load x]", "final x = 1, expected 2"), w, { rootDir: root }), false);
});

test("a stored bucket becomes a candidate: junk frames dropped, message normalized with the root when none was recorded", () => {
  const real = crashState(A, { rootDir: root });
  const stored = bucketCandidate(
    { id: "A", kind: real.kind, signature: real.signature, frames: [...real.frames, { fn: 3 }, null, "x"], message: A.message },
    { rootDir: root },
  );
  assert.deepEqual(stored.frames.map((f) => `${f.fn}@${f.file}`), real.frames.map((f) => `${f.fn}@${f.file}`));
  assert.equal(stored.normalizedMessage, real.normalizedMessage);
  assert.deepEqual(stateAsBucket(real, "A"), { id: "A", kind: real.kind, signature: real.signature, frames: real.frames, normalizedMessage: real.normalizedMessage });
});

test("on a real node trace (golden fixture): the same stack printed with other lines is the same bug", () => {
  const text = readFileSync(join(FIXTURES, "sync-throw.txt"), "utf8");
  const spec = JSON.parse(readFileSync(join(FIXTURES, "sync-throw.expected.json"), "utf8")) as { rootDir: string; finding: unknown };
  const f = Finding.parse({ ...(spec.finding as object), stack: text });
  const b = findingAsBucket(f, "S", { rootDir: spec.rootDir });
  const moved = Finding.parse({ ...(spec.finding as object), stack: text.replace(/:(\d+):(\d+)\)/g, (_, l: string, c: string) => `:${Number(l) + 5}:${Number(c) + 1})`) });
  assert.notEqual(moved.stack, f.stack);
  assert.equal(isSameBug(moved, b, { rootDir: spec.rootDir }), true);
  const renamed = Finding.parse({ ...(spec.finding as object), stack: text.replace("at parseHeader", "at parseHost") });
  assert.equal(isSameBug(renamed, b, { rootDir: spec.rootDir }), false);
});
