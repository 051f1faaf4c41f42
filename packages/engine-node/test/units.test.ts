// Pure parts: argument parsing, race pairs, fingerprints, explanations, same-failure checks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseCliArgs } from "../src/internal/cli-args";
import { racePairs, fingerprint, type TraceEvent } from "../src/internal/trace";
import { explainHolds } from "../src/internal/explain";
import { FailureSet, sameFailureAs } from "../src/internal/same-failure";
import type { Finding } from "@fuzzfarm/protocol";

const ev = (seq: number, kind: string, site: string, reg: number, arr: number, del: number, extra: Partial<TraceEvent> = {}): TraceEvent => ({
  seq, id: `${kind}@${site}#1.0`, kind, site, api: "", async: 0, trigger: 0, held: false, delay: -1, reg, arr, del, t: 0, ...extra,
});

test("options end at the script; the rest are the program's arguments", () => {
  const o = parseCliArgs(["--seed", "7", "--strategy", "pct", "--depth", "2", "--max-delay=20", "app.js", "--seed", "x"]);
  assert.equal(o.seed, 7);
  assert.equal(o.strategy, "pct");
  assert.deepEqual(o.params, { depth: 2, maxDelayMs: 20 });
  assert.equal(o.script, "app.js");
  assert.deepEqual(o.args, ["--seed", "x"]);
  assert.equal(parseCliArgs(["--", "--weird.js"]).script, "--weird.js");
  assert.throws(() => parseCliArgs(["--strategy", "chaos", "a.js"]), /unknown strategy/);
  assert.throws(() => parseCliArgs(["--bogus", "a.js"]), /unknown option/);
  assert.throws(() => parseCliArgs(["--seed", "abc", "a.js"]), /needs a number/);
});

test("race pairs: sites pending together, in the order they ran", () => {
  // a registered at 0, delivered at 5; b registered at 1, delivered at 3; c registered after a ran
  const events = [ev(0, "fs", "x.js:1:1", 1, 2, 3), ev(1, "timeout", "x.js:2:1", 0, 4, 5), ev(2, "fs", "x.js:3:1", 6, 7, 8)];
  const pairs = racePairs({ events });
  assert.deepEqual(pairs.sort(), ["fs@x.js:1|timeout@x.js:2"]);
  assert.equal(fingerprint({ events }), fingerprint({ events: events.map((e) => ({ ...e, arr: e.arr + 100 })) }));
  assert.notEqual(fingerprint({ events }), fingerprint({ events: [events[1]!, events[0]!, events[2]!] }));
});

test("an explanation names what a held callback was delayed past", () => {
  const read = ev(1, "fs", "lib/cache.js:42:3", 0, 1, 5, { api: "fs.readFile", held: true, id: "fs@lib/cache.js:42:3#1.0" });
  const timer = ev(0, "timeout", "lib/cache.js:57:1", 0, 3, 4, { id: "timeout@lib/cache.js:57:1#1.0" });
  const lines = explainHolds([timer, read], new Set([read.id]));
  assert.deepEqual(lines, ["fs.readFile callback (lib/cache.js:42) delayed past the timer set at lib/cache.js:57"]);
});

const thrown = (fn: string, line: number, msg: string): Finding => ({
  kind: "crash", crashKind: "uncaught", message: `Error: ${msg}`, reproducer: { engine: "node", options: {} }, detail: {},
  stack: `Error: ${msg}\n    at ${fn} (/srv/app/lib/cache.js:${line}:11)\n    at main (/srv/app/index.js:${line + 3}:3)\n    at node:internal/process/task_queues:95:5`,
});

test("same failure: temp paths, numbers and line numbers do not split a bug; another throwing function does", () => {
  const same = sameFailureAs(thrown("mkdirCache", 12, "EEXIST: file already exists, mkdir '/tmp/race-AbC123/cache'"), "/srv/app");
  assert.equal(same(thrown("mkdirCache", 40, "EEXIST: file already exists, mkdir '/tmp/race-Zz9/cache'")), true);
  assert.equal(same(thrown("writeCache", 12, "EEXIST: file already exists, mkdir '/tmp/race-AbC123/cache'")), false);
  assert.equal(same({ kind: "ok" }), false);
  const set = new FailureSet("/srv/app");
  assert.deepEqual(
    [thrown("inc", 3, "lost update: hits=1, expected 2"), thrown("inc", 9, "lost update: hits=0, expected 2"), thrown("dec", 3, "lost update: hits=1, expected 2")].map((f) => set.add(f)),
    [true, false, true],
  );
  // keyOf: the job recorder's finding key, the same id for the same bug
  const keys = new FailureSet("/srv/app");
  assert.deepEqual(
    [thrown("inc", 3, "lost update: hits=1, expected 2"), thrown("dec", 3, "x"), thrown("inc", 9, "lost update: hits=0, expected 2")].map((f) => keys.keyOf(f)),
    ["f0", "f1", "f0"],
  );
});
