// Bucket choice and similarity: exact signature, similar (ordered common
// frames + message similarity, named thresholds), or new; never across kinds.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Finding } from "@fuzzfarm/protocol";
import {
  FRAME_WEIGHT,
  MAX_ALTERNATIVES,
  MESSAGE_WEIGHT,
  SAME_FRAMES_THRESHOLD,
  SIMILARITY_THRESHOLD,
  STATE_FRAME_COUNT,
  chooseBucket,
  compareStates,
  crashState,
  similarity,
  stringSimilarity,
  type BucketCandidate,
  type CrashState,
} from "../src/index";

const root = "/srv/app";
function state(crashKind: string, header: string, fns: string[]): CrashState {
  const stack = [header, ...fns.map((fn, i) => `    at ${fn} (/srv/app/lib/${fn}.js:${i + 1}:1)`)].join("\n");
  return crashState(Finding.parse({ kind: "crash", crashKind, message: "", stack, reproducer: { engine: "input", options: {} } }), { rootDir: root });
}
const bucket = (id: string, s: CrashState): BucketCandidate => ({ id, signature: s.signature, kind: s.kind, frames: s.frames, normalizedMessage: s.normalizedMessage });

test("the named thresholds are where the rules turn: frames kept, score formula, similarity boundary, alternatives", () => {
  // STATE_FRAME_COUNT: a frame below the kept ones changes nothing, a kept one changes the signature
  const fns = Array.from({ length: STATE_FRAME_COUNT + 2 }, (_, i) => `fn${i}`);
  const withFrame = (i: number, fn: string) => fns.map((f, k) => (k === i ? fn : f));
  const deep = state("uncaught", "TypeError: x", fns);
  assert.equal(deep.frames.length, STATE_FRAME_COUNT);
  assert.equal(state("uncaught", "TypeError: x", withFrame(STATE_FRAME_COUNT, "other")).signature, deep.signature);
  assert.notEqual(state("uncaught", "TypeError: x", withFrame(STATE_FRAME_COUNT - 1, "other")).signature, deep.signature);

  // the score is FRAME_WEIGHT x frame overlap + MESSAGE_WEIGHT x message similarity, and "similar" (same top
  // frame, SAME_FRAMES_THRESHOLD common frames) turns exactly at SIMILARITY_THRESHOLD: walk a message away from
  // the base one character at a time, with all frames shared and with one kept frame replaced
  const base = state("uncaught", `Error: ${"a".repeat(24)}`, fns);
  const seen = { similar: 0, apart: 0 };
  for (const replaced of [null, STATE_FRAME_COUNT - 1]) {
    for (let k = 0; k <= 24; k++) {
      const s = state("uncaught", `Error: ${"b".repeat(k)}${"a".repeat(24 - k)}`, replaced === null ? fns : withFrame(replaced, "other"));
      const c = compareStates(s, base);
      const common = replaced === null ? STATE_FRAME_COUNT : STATE_FRAME_COUNT - 1;
      assert.equal(c.commonFrames, common);
      assert.ok(Math.abs(c.score - (FRAME_WEIGHT * (common / STATE_FRAME_COUNT) + MESSAGE_WEIGHT * stringSimilarity(s.normalizedMessage, base.normalizedMessage))) < 1e-3, `score ${c.score}`);
      assert.equal(c.similar, c.score >= SIMILARITY_THRESHOLD && common >= SAME_FRAMES_THRESHOLD, `k=${k} replaced=${replaced} score ${c.score}`);
      assert.equal(chooseBucket(s, [bucket("B", base)]).bucketId, c.similar || s.signature === base.signature ? "B" : null);
      seen[c.similar ? "similar" : "apart"]++;
    }
  }
  // the walk crossed the boundary both ways (otherwise it proved nothing about where it lies)
  assert.ok(seen.similar > 0 && seen.apart > 0, JSON.stringify(seen));

  // MAX_ALTERNATIVES: more scored candidates than that keep only that many
  const many = Array.from({ length: MAX_ALTERNATIVES + 4 }, (_, i) => bucket(`c${i}`, state("uncaught", `Error: other ${i}`, withFrame(0, `top${i}`))));
  assert.equal(chooseBucket(base, many).alternatives.length, MAX_ALTERNATIVES);
});

test("string similarity is ClusterFuzz's Levenshtein ratio", () => {
  assert.equal(stringSimilarity("", ""), 1);
  assert.equal(stringSimilarity("abc", "abd"), 5 / 6);
  assert.equal(stringSimilarity("abc", "xyz"), 0.5);
  assert.equal(stringSimilarity("abc", ""), 0);
});

test("exact: the same signature (other line numbers, other message) joins the bucket", () => {
  const a = state("uncaught", "TypeError: cannot read 'x'", ["parse", "load", "main"]);
  const b = state("uncaught", "TypeError: cannot read 'y' of undefined", ["parse", "load", "main"]);
  const other = state("uncaught", "TypeError: nope", ["render", "view", "main"]);
  const r = chooseBucket(b, [bucket("b1", other), bucket("b2", a)]);
  assert.equal(r.rule, "exact");
  assert.equal(r.bucketId, "b2");
  assert.equal(r.score, 1);
  assert.deepEqual(r.alternatives.map((x) => x.id), ["b1"]);
});

test("similar: same frames with another error class; a truncated stack; the same throw site from another caller", () => {
  const base = state("uncaught", "TypeError: bad header line 12", ["parseHeader", "parseAll", "main"]);
  const cls = state("uncaught", "RangeError: bad header line 40", ["parseHeader", "parseAll", "main"]);
  assert.notEqual(cls.signature, base.signature);
  let r = chooseBucket(cls, [bucket("B", base)]);
  assert.equal(r.rule, "similar");
  assert.equal(r.bucketId, "B");
  assert.ok(r.score >= SIMILARITY_THRESHOLD);

  const truncated = state("uncaught", "TypeError: bad header line 7", ["parseHeader", "parseAll"]);
  r = chooseBucket(truncated, [bucket("B", base)]);
  assert.equal(r.rule, "similar");

  const otherCaller = state("uncaught", "TypeError: bad header line 9", ["parseHeader", "parseTrailer", "main"]);
  const cmp = compareStates(otherCaller, base);
  assert.equal(cmp.commonFrames, 2);
  assert.equal(cmp.messageScore, 1);
  assert.equal(chooseBucket(otherCaller, [bucket("B", base)]).rule, "similar");
});

test("new: the same message thrown from another function is another bug", () => {
  const base = state("uncaught", "TypeError: bad header line 12", ["parseHeader", "parseAll", "main"]);
  const otherTop = state("uncaught", "TypeError: bad header line 9", ["splitHeader", "parseAll", "main"]);
  const cmp = compareStates(otherTop, base);
  assert.equal(cmp.commonFrames, 2);
  assert.equal(cmp.messageScore, 1);
  assert.equal(cmp.similar, false);
  assert.equal(chooseBucket(otherTop, [bucket("B", base)]).rule, "new");
});

test("new: 2 of 3 frames with a different message; one common frame; different kinds never merge", () => {
  const base = state("uncaught", "TypeError: bad header line 12", ["parseHeader", "parseAll", "main"]);
  const otherMsg = state("uncaught", "Error: socket hang up", ["splitHeader", "parseAll", "main"]);
  let r = chooseBucket(otherMsg, [bucket("B", base)]);
  assert.equal(r.rule, "new");
  assert.equal(r.bucketId, null);
  assert.deepEqual(r.alternatives, [{ id: "B", score: r.score }]);
  assert.ok(r.score > 0 && r.score < SIMILARITY_THRESHOLD);

  const oneCommon = state("uncaught", "TypeError: bad header line 12", ["parseHeader", "x", "y"]);
  assert.equal(chooseBucket(oneCommon, [bucket("B", base)]).rule, "new");

  const rejection = state("rejection", "TypeError: bad header line 12", ["parseHeader", "parseAll", "main"]);
  assert.equal(similarity(rejection, base), 0);
  r = chooseBucket(rejection, [bucket("B", base)]);
  assert.equal(r.rule, "new");
  assert.deepEqual(r.alternatives, []);
});

test("frameless states other than exit-code failures match only exactly", () => {
  const a = state("oom", "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory", []);
  const b = state("oom", "FATAL ERROR: invalid array length Allocation failed - JavaScript heap out of memory", []);
  assert.equal(chooseBucket(a, [bucket("A", a)]).rule, "exact");
  const r = chooseBucket(b, [bucket("A", a)]);
  assert.equal(r.rule, "new");
  assert.ok(!compareStates(a, b).similar);
});

test("the choice does not depend on candidate order; alternatives are bounded and sorted", () => {
  const s = state("uncaught", "Error: queue full 3", ["push", "enqueue", "tick"]);
  const cands: BucketCandidate[] = [];
  for (let i = 0; i < 12; i++) {
    const fns = i % 3 === 0 ? ["push", "enqueue", `f${i}`] : i % 3 === 1 ? ["push", `g${i}`, `h${i}`] : [`a${i}`, `b${i}`, `c${i}`];
    cands.push(bucket(`c${String(i).padStart(2, "0")}`, state("uncaught", `Error: queue full ${i}`, fns)));
  }
  const r1 = chooseBucket(s, cands);
  const r2 = chooseBucket(s, [...cands].reverse());
  assert.deepEqual(r1, r2);
  assert.equal(r1.rule, "similar");
  assert.equal(r1.bucketId, "c00");
  assert.ok(r1.alternatives.length <= MAX_ALTERNATIVES);
  for (let i = 1; i < r1.alternatives.length; i++) assert.ok(r1.alternatives[i - 1]!.score >= r1.alternatives[i]!.score);
});

// An exit code with a BUG line on stderr has no frames: only its message can
// tell two reports apart (mkpath-1 of bench/real-bugs filed three buckets for
// one bug, the colliding directory at three depths).
test("frameless reports: the same message up to run data is one bucket, another message is not", () => {
  const exit = (line: string): CrashState =>
    crashState(Finding.parse({ kind: "crash", crashKind: "exit", message: `exit code 1: ${line}`, stack: `${line}\n`, reproducer: { engine: "node", options: {} } }), { rootDir: root });
  const depth = (p: string) => exit(`BUG: concurrent mkpath calls both created /tmp/ff-realbug-${Math.random().toString(36).slice(2, 8)}/${p}: EEXIST: file already exists, mkdir '/tmp/ff-x/${p}'`);
  const a = depth("out"), b = depth("out/x"), c = depth("out/x/y");
  assert.equal(a.frames.length, 0);
  assert.notEqual(a.signature, b.signature);
  for (const [x, y] of [[a, b], [a, c], [b, c]] as const) assert.ok(compareStates(x, y).similar, `${x.normalizedMessage} ~ ${y.normalizedMessage}`);
  assert.equal(chooseBucket(c, [bucket("b1", a)]).bucketId, "b1");
  const other = exit("BUG: the value fetched after the abort was dropped from the cache");
  assert.equal(compareStates(a, other).similar, false);
  assert.equal(chooseBucket(other, [bucket("b1", a)]).bucketId, null);
  // one report with frames and one without are never alike, whatever the message
  const framed = state("uncaught", `Error: ${a.normalizedMessage}`, ["mkdirP", "mkpath"]);
  assert.equal(compareStates(a, framed).similar, false);
});
