// Litmus mode, the reference interpreter and the CLI's exit codes.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allowedOutcomes, Harness, loadLitmus, runLitmus, runWasmCli } from "../src/index";

const h = new Harness();
after(() => h.close());
const ex = (n: string) => new URL(`../../../examples/wasm/${n}`, import.meta.url).pathname;

test("reference interpreter: SC-allowed outcome sets of classic litmus tests", async () => {
  assert.deepEqual(allowedOutcomes(await loadLitmus(ex("sb.wat")))!.allowed, ["0;1", "1;0", "1;1"]);
  assert.deepEqual(allowedOutcomes(await loadLitmus(ex("mp.wat")))!.allowed, [";0,0", ";0,1", ";1,1"]);
  assert.deepEqual(allowedOutcomes(await loadLitmus(ex("2plus2w.wat")))!.allowed, [";|1,2", ";|2,1", ";|2,2"]);
  const iriw = allowedOutcomes(await loadLitmus(ex("iriw.wat")))!.allowed;
  assert.equal(iriw.length, 15);
  assert.ok(!iriw.includes(";;1,0;1,0"));
  assert.equal(allowedOutcomes(await loadLitmus(ex("rmw-chain.wat")))!.allowed.length, 90);
});

test("race strategy finds every allowed SB outcome within 40 runs, none forbidden", async () => {
  const r = await runLitmus(h, await loadLitmus(ex("sb.wat")), { runs: 40, strategy: "race", seed: 3 });
  assert.deepEqual(Object.keys(r.outcomes).sort(), r.allowed);
  assert.deepEqual(r.forbiddenSeen, []);
});

test("a reorder fault in MP shows the forbidden outcome", async () => {
  const r = await runLitmus(h, await loadLitmus(ex("mp.wat")), { runs: 100, fault: "reorder" });
  assert.equal(r.faultApplies, true);
  assert.deepEqual(r.forbiddenSeen, [";1,0"]);
});

test("CLI: exit 0 ok, 1 findings, 2 bad input; --json shape", async () => {
  let out = "";
  const io = { stdout: (s: string) => (out += s), stderr: (s: string) => (out += s) };
  assert.equal(await runWasmCli(["litmus", ex("sb.wat"), "--runs", "20", "--json"], io), 0);
  const j = JSON.parse(out.trim());
  assert.equal(j.runs, 20);
  assert.ok(j.outcomes && j.allowed && Array.isArray(j.forbiddenSeen));
  out = "";
  assert.equal(await runWasmCli(["litmus", ex("mp.wat"), "--runs", "60", "--fault", "reorder"], io), 1);
  out = "";
  assert.equal(await runWasmCli(["litmus", "/nonexistent.wasm"], io), 2);
  assert.match(out, /^FF_ERR_TARGET_NOT_FOUND: /);
  const dir = mkdtempSync(join(tmpdir(), "ffw-"));
  writeFileSync(join(dir, "bad.wasm"), "not wasm");
  out = "";
  assert.equal(await runWasmCli(["litmus", join(dir, "bad.wasm")], io), 2);
  assert.match(out, /^FF_ERR_TARGET_INVALID: /);
  assert.equal(out.trim().split("\n").length, 1);
  out = "";
  assert.equal(await runWasmCli(["litmus", ex("sb.wat"), "--strategy", "nope"], io), 2);
  assert.equal(await runWasmCli(["bogus"], io), 2);
  assert.equal(await runWasmCli(["run", "--help"], io), 0);
  out = "";
  assert.equal(await runWasmCli(["gen", "--seed", "3"], io), 0);
  assert.match(out, /\(module/);
});
