// Job signatures: a payload survives BullMQ's JSON round trip with its
// signature intact, and any change to it, a missing signature or another
// key is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { signJobData, verifyJobData } from "../src/index";

const KEY = randomBytes(32).toString("base64url");
const job = { jobId: "j1", campaignId: "c1", engine: "node", kind: "fuzz", target: { name: "t", path: "/srv/t.js", version: "v" }, budget: { runs: 5, seconds: 1.5 }, seeds: [], options: { args: ["--x"], params: { depth: 3 } } };

test("a signed payload verifies after a JSON round trip and comes back without its signature", () => {
  const data = JSON.parse(JSON.stringify(signJobData(job, KEY)));
  assert.deepEqual(verifyJobData(data, KEY), job);
});

test("unsigned, tampered, re-keyed and non-object data are refused with FF_ERR_BAD_JOB", () => {
  const signed = signJobData(job, KEY);
  const bad: [string, unknown, RegExp][] = [
    ["unsigned", job, /unsigned job/],
    ["path changed", { ...signed, target: { ...job.target, path: "/tmp/evil.js" } }, /does not match/],
    ["option added", { ...signed, options: { ...job.options, optimizerCmd: "id" } }, /does not match/],
    ["other key", signJobData(job, KEY + "x"), /does not match/],
    ["truncated signature", { ...signed, sig: signed.sig.slice(1) }, /does not match/],
    ["array", [signed], /not an object/],
    ["null", null, /not an object/],
  ];
  for (const [what, data, msg] of bad)
    assert.throws(() => verifyJobData(data, KEY), (e: { code?: string; message: string }) => e.code === "FF_ERR_BAD_JOB" && msg.test(e.message), what);
});

test("a payload cannot smuggle its own signature field", () => {
  assert.throws(() => signJobData({ ...job, sig: "x" }, KEY), /may not carry/);
});
