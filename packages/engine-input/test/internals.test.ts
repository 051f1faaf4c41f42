// Pure pieces of the engine: finding dedupe keys, exit classification,
// coverage bookkeeping across executor processes, batch packing.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Finding } from "@fuzzfarm/protocol";
import { JobRecorder } from "@fuzzfarm/corpus";
import { dedupeKey, topFrame } from "../src/internal/findings";
import { classifyExit } from "../src/internal/fatal";
import { CoverageBook } from "../src/internal/coverage-book";
import { packInputs } from "../src/internal/campaign";
import type { ExitInfo } from "../src/internal/executor";

const HARNESS_FRAME = "    at runOne (/x/packages/engine-input/src/internal/child/harness.cjs:131:17)";
const crash = (crashKind: "uncaught" | "exit" | "signal", message: string, stack: string, detail = {}): Finding => ({
  kind: "crash",
  crashKind,
  message,
  stack,
  reproducer: { engine: "input", options: {} },
  detail,
});

test("topFrame skips harness frames and node internals", () => {
  const stack = ["Error: x", "    at exitHook (node:internal/process/per_thread:1:1)", HARNESS_FRAME, "    at fuzz (/t/a.ts:3:9)", "    at g (/t/b.ts:1:1)"].join("\n");
  assert.equal(topFrame(stack), "at fuzz (/t/a.ts:3:9)");
  assert.equal(topFrame("no frames here"), null);
});

test("dedupe: same kind and frame merge with hit counts; exit keys use the last exit banner", () => {
  // As the campaign records them: one finding per dedupe key, hits counted.
  const book = new JobRecorder();
  const add = (f: Finding, count = 1) => {
    const key = dedupeKey(f);
    const fresh = book.claim(key, count);
    if (fresh) book.keep(key, f);
    return fresh;
  };
  const a = crash("uncaught", "boom 1", "Error: boom 1\n    at fuzz (/t/a.ts:3:9)");
  const b = crash("uncaught", "boom 2", "Error: boom 2\n    at fuzz (/t/a.ts:3:9)");
  const c = crash("uncaught", "boom", "Error: boom\n    at fuzz (/t/a.ts:7:1)");
  assert.equal(add(a, 5), true);
  assert.equal(add(b, 3), false);
  assert.equal(add(c), true);
  assert.deepEqual(book.result().findings!.map((f) => f.detail?.hits), [8, 1]);
  const stderr = "old noise\n    at somewhere (/t/old.ts:1:1)\nfuzzfarm: Error: target called process.exit(3)\n" + HARNESS_FRAME + "\n    at fuzz (/t/e.ts:2:5)";
  assert.equal(dedupeKey(crash("exit", "m", stderr)), "exit|at fuzz (/t/e.ts:2:5)");
  assert.equal(dedupeKey(crash("signal", "killed by signal SIGKILL", stderr)), "signal|killed by signal SIGKILL");
});

test("classifyExit: hang, then out of memory, then signal, then exit code", () => {
  const base: ExitInfo = { code: null, signal: null, stderr: "", status: { seq: 1, startedAt: 0, running: true }, hang: false, killedByUs: false };
  assert.equal(classifyExit({ ...base, hang: true, signal: "SIGKILL" }, 300).kind, "hang");
  const oom = classifyExit({ ...base, signal: "SIGABRT", stderr: "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory" }, 1);
  assert.equal(oom.kind === "crash" && oom.crashKind, "oom");
  const sig = classifyExit({ ...base, signal: "SIGSEGV" }, 1);
  assert.equal(sig.kind === "crash" && sig.crashKind, "signal");
  const exit = classifyExit({ ...base, code: 7, stderr: "fuzzfarm: Error: target called process.exit(7)" }, 1);
  assert.deepEqual(exit, { kind: "crash", crashKind: "exit", message: "target called process.exit(7): exit code 7", detail: { exitCode: 7 } });
});

test("CoverageBook sums executor lifetimes and never reports a known feature as 0 hits", () => {
  const cov = new CoverageBook();
  const loc = { start: { line: 1, column: 0 }, end: { line: 1, column: 1 } };
  cov.addShapes([{ rel: "a.ts", statementMap: { 0: loc, 1: loc }, fnMap: { 0: { name: "f", loc, decl: loc } }, branchMap: { 0: { locations: [loc, loc] } } }]);
  const features = ["s:a.ts:0", "b:a.ts:0:1", "s:a.ts:1"];
  cov.snapshot({ "a.ts": { s: [5, 0], f: [5], b: [[0, 5]] } });
  cov.snapshot({ "a.ts": { s: [9, 0], f: [9], b: [[0, 9]] } }); // same process, later: replaces
  cov.endProcess();
  cov.snapshot({ "a.ts": { s: [1, 0], f: [1], b: [[1, 0]] } }); // a second process
  const map = cov.toCoverageMap(features) as Record<string, { s: Record<string, number>; f: Record<string, number>; b: Record<string, number[]> }>;
  assert.deepEqual(map["a.ts"]!.s, { 0: 10, 1: 1 }); // s:1 known from a process that died before its snapshot
  assert.deepEqual(map["a.ts"]!.f, { 0: 10 });
  assert.deepEqual(map["a.ts"]!.b, { 0: [1, 9] });
  assert.equal(cov.featureTotal(), 5);
});

test("packInputs concatenates inputs with end offsets", () => {
  const { data, ends } = packInputs([new Uint8Array([1, 2]), new Uint8Array(0), new Uint8Array([3])]);
  assert.deepEqual([...data], [1, 2, 3]);
  assert.deepEqual([...ends], [2, 2, 3]);
});
