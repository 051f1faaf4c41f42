import { test } from "node:test";
import assert from "node:assert/strict";
import type { Finding } from "@fuzzfarm/protocol";
import { JobRecorder } from "../src/index";

const crash = (message: string): Finding => ({
  kind: "crash", crashKind: "uncaught", message, stack: "", reproducer: { engine: "input", options: {} }, detail: { first: message },
} as Finding);

test("execs and features are counted and credited once per distinct name", () => {
  const r = new JobRecorder();
  r.exec(3, ["bitflip", "splice", "bitflip"]);
  r.exec(2, "race");
  assert.equal(r.execs, 5);
  assert.deepEqual(r.addFeatures(["a", "b"], "race"), ["a", "b"]);
  assert.deepEqual(r.addFeatures(["b", "c", "c"], ["splice", "splice"]), ["c"]);
  assert.deepEqual(r.addFeatures(["a"], "race"), []);
  r.credit(["bitflip", "bitflip"], "findings", 2);
  const res = r.result();
  assert.deepEqual(res.features, ["a", "b", "c"]);
  assert.equal(res.featureTotal, 3);
  assert.deepEqual(res.strategyYield, {
    bitflip: { execs: 3, newFeatures: 0, findings: 2 },
    splice: { execs: 3, newFeatures: 1, findings: 0 },
    race: { execs: 2, newFeatures: 2, findings: 0 },
  });
});

test("findings: one per key in claim order, hits counted only when asked, capped", async () => {
  const r = new JobRecorder({ maxFindings: 2 });
  assert.equal(r.claim("x", 1), true);
  assert.equal(r.claim("y"), true);
  // kept out of claim order (an engine confirms x later): still listed x first
  r.keep("y", crash("y"));
  await Promise.resolve();
  r.keep("x", crash("x"));
  assert.equal(r.claim("x", 4), false);
  assert.equal(r.claim("y"), false);
  assert.equal(r.claim("z"), false, "a third bug is over maxFindings");
  assert.equal(r.findingCount, 2);
  const { findings } = r.result();
  assert.deepEqual(findings!.map((f) => f.message), ["x", "y"]);
  assert.deepEqual(findings![0]!.detail, { first: "x", hits: 5 });
  assert.deepEqual(findings![1]!.detail, { first: "y" });
  assert.throws(() => r.keep("z", crash("z")), RangeError);
});

test("a claimed finding never kept is left out", () => {
  const r = new JobRecorder();
  r.claim("lost");
  assert.deepEqual(r.result().findings, []);
});

test("candidates stop at maxCandidates", () => {
  const r = new JobRecorder({ maxCandidates: 2 });
  const c = (d: string) => ({ data: d, strategy: {}, features: [], execTimeUs: 1 });
  assert.equal(r.candidate(c("1")), true);
  assert.equal(r.candidate(c("2")), true);
  assert.equal(r.candidate(c("3")), false);
  assert.deepEqual(r.result().corpus!.map((x) => x.data), ["1", "2"]);
});

test("progress is throttled on the injected clock; busyMs and failed use it too", () => {
  let now = 100;
  const seen: { execs: number; features: number }[] = [];
  const r = new JobRecorder({ clock: () => now, onProgress: (p) => seen.push(p), progressEveryMs: 1000 });
  r.exec(1);
  r.progress();
  now += 500;
  r.exec(1);
  r.progress();
  now += 600;
  r.addFeatures(["f"]);
  r.progress();
  assert.deepEqual(seen, [{ execs: 1, features: 0 }, { execs: 2, features: 1 }]);
  assert.equal(r.busyMs(), 1100);
  assert.deepEqual(r.failed({ kind: "target-invalid", message: "no" }), { execs: 2, busyMs: 1100, error: { kind: "target-invalid", message: "no" } });
  const res = r.result({ featureTotal: 9, coverage: { a: 1 }, error: { kind: "internal", message: "late" } });
  assert.equal(res.featureTotal, 9);
  assert.deepEqual(res.coverage, { a: 1 });
  assert.deepEqual(res.error, { kind: "internal", message: "late" });
});
