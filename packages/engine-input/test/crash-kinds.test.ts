// Each crash kind produced by a real target in a real executor process,
// classified, deduplicated, and confirmed by reproducing its input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { findingKind, type Finding } from "@fuzzfarm/protocol";
import { inputEngine } from "../src/index";
import { fixture, inputReproducer, makeJob, runJob, withCtx } from "./helpers";

async function onlyFinding(target: string, options: Record<string, unknown> = {}, budget = { runs: 3000, seconds: 8 }) {
  const r = await runJob(makeJob(fixture(target), options, budget));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.findings?.length, 1, JSON.stringify(r.findings?.map((f) => f.message)));
  return { r, f: r.findings![0]! };
}

async function reproduces(target: string, f: Finding) {
  const o = await withCtx((ctx) => inputEngine.reproduce({ path: fixture(target) }, inputReproducer(f), ctx));
  assert.notEqual(o.kind, "ok", `reproducer of ${f.message} did not reproduce`);
  assert.equal(findingKind(o as Finding), findingKind(f));
}

test("sync throw: uncaught, one finding with a hit count, reproducible", async () => {
  const { r, f } = await onlyFinding("sync-throw.cjs");
  assert.equal(f.kind === "crash" && f.crashKind, "uncaught");
  assert.equal(f.message, "sync boom");
  assert.match(f.stack, /TypeError: sync boom\n\s+at fuzz \(.*sync-throw\.cjs:3:/);
  assert.ok(Number(f.detail.hits) > 1000, `hits ${f.detail.hits}`);
  assert.equal(r.execs, 3000);
  assert.ok(Buffer.from(inputReproducer(f).input!, "base64").length >= 2);
  await reproduces("sync-throw.cjs", f);
});

test("async throw from a timer: uncaught, attributed to the input that set the timer", async () => {
  const { f } = await onlyFinding("async-throw.js");
  assert.equal(f.kind === "crash" && f.crashKind, "uncaught");
  assert.equal(f.message, "async boom from a timer");
  assert.equal(f.detail.attribution, "replayed");
  const input = Buffer.from(inputReproducer(f).input!, "base64");
  assert.ok(input.length >= 1 && input[0]! < 16, `input ${input.toString("hex")}`);
  await reproduces("async-throw.js", f);
});

test("rejected promise returned by fuzz: rejection", async () => {
  const { f } = await onlyFinding("rejected-promise.ts");
  assert.equal(f.kind === "crash" && f.crashKind, "rejection");
  assert.equal(f.message, "rejected boom");
  await reproduces("rejected-promise.ts", f);
});

test("unhandled rejection: rejection, attributed to its input", async () => {
  const { f } = await onlyFinding("unhandled-rejection.cjs");
  assert.equal(f.kind === "crash" && f.crashKind, "rejection");
  assert.equal(f.message, "unhandled boom");
  assert.ok(Buffer.from(inputReproducer(f).input!, "base64")[0]! < 16);
  await reproduces("unhandled-rejection.cjs", f);
});

test("process.exit(3): exit crash with the calling frame, executor restarted until the budget ends", async () => {
  const { r, f } = await onlyFinding("exit-code.cjs", {}, { runs: 2000, seconds: 4 });
  assert.equal(f.kind === "crash" && f.crashKind, "exit");
  assert.equal(f.detail.exitCode, 3);
  assert.match(f.stack, /target called process\.exit\(3\)[\s\S]*at fuzz \(.*exit-code\.cjs:3:/);
  const input = Buffer.from(inputReproducer(f).input!, "base64");
  assert.ok(input.length >= 3 && input[0]! < 32);
  assert.ok(Number(f.detail.hits) >= 3, `only ${f.detail.hits} crashes: no restarts?`);
  assert.ok(r.execs > Number(f.detail.firstExec) + 10, `execs ${r.execs} after first crash at ${f.detail.firstExec}`);
  await reproduces("exit-code.cjs", f);
});

test("killed by a signal: signal crash", async () => {
  const { f } = await onlyFinding("signal-kill.cjs", {}, { runs: 2000, seconds: 3 });
  assert.equal(f.kind === "crash" && f.crashKind, "signal");
  assert.equal(f.detail.signal, "SIGKILL");
  await reproduces("signal-kill.cjs", f);
});

test("synchronous infinite loop: hang at timeoutMs, not a lost job", async () => {
  const started = Date.now();
  const { r, f } = await onlyFinding("hang-loop.cjs", { timeoutMs: 300 }, { runs: 2000, seconds: 3 });
  assert.equal(f.kind, "hang");
  assert.equal(f.kind === "hang" && f.timeoutMs, 300);
  assert.ok(Date.now() - started < 15_000);
  assert.ok(r.execs > 0);
  const input = Buffer.from(inputReproducer(f).input!, "base64");
  assert.ok(input.length >= 3 && input[0]! < 32);
  await reproduces("hang-loop.cjs", f);
});

test("a promise that never settles: hang", async () => {
  // every input of 2+ bytes hangs (300 ms each), so time bounds the job: 2 s found nothing once on a loaded CI machine
  const { f } = await onlyFinding("hang-promise.cjs", { timeoutMs: 300 }, { runs: 300, seconds: 5 });
  assert.equal(f.kind, "hang");
  assert.ok(Buffer.from(inputReproducer(f).input!, "base64").length >= 2);
});

test("heap exhaustion under maxMemoryMb: oom", async () => {
  const { f } = await onlyFinding("heap-oom.cjs", { maxMemoryMb: 64 }, { runs: 2000, seconds: 3 });
  assert.equal(f.kind === "crash" && f.crashKind, "oom");
  assert.match(f.stack, /heap out of memory|Reached heap limit/);
  assert.ok(f.stack.length <= 16 * 1024);
  await reproduces("heap-oom.cjs", { ...f, reproducer: { ...inputReproducer(f), options: { maxMemoryMb: 64 } } });
});

test("missing target, missing export, syntax error: one-line job errors, no throw", async () => {
  const missing = await runJob(makeJob(fixture("does-not-exist.ts")));
  assert.equal(missing.error?.kind, "target-not-found");
  const noExport = await runJob(makeJob(fixture("no-export.cjs")));
  assert.equal(noExport.error?.kind, "target-invalid");
  assert.match(noExport.error!.message, /no exported function `fuzz/);
  const syntax = await runJob(makeJob(fixture("syntax-error.ts")));
  assert.equal(syntax.error?.kind, "target-invalid");
  for (const e of [missing.error!, noExport.error!, syntax.error!]) assert.ok(!e.message.includes("\n"), e.message);
});

test("reproduce says ok for a harmless input", async () => {
  const o = await withCtx((ctx) => inputEngine.reproduce({ path: fixture("exit-code.cjs") }, { engine: "input", input: "AAA=", options: {} }, ctx));
  assert.deepEqual(o, { kind: "ok" });
});
