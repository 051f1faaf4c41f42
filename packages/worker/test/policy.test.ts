// The worker's job policy: target roots (symlinks resolved) and the
// optimizer allow-list, on real files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseJob } from "@fuzzfarm/protocol";
import { checkJobPolicy } from "../src/index";

const dir = mkdtempSync(join(tmpdir(), "ff-policy-"));
mkdirSync(join(dir, "targets"));
mkdirSync(join(dir, "elsewhere"));
writeFileSync(join(dir, "targets", "t.js"), "");
writeFileSync(join(dir, "elsewhere", "x.js"), "");
symlinkSync(join(dir, "elsewhere", "x.js"), join(dir, "targets", "link.js"));
const job = (engine: "node" | "wasm", path: string, options: Record<string, unknown> = {}) =>
  parseJob({ jobId: "j", campaignId: "c", engine, target: { name: "t", path }, budget: { runs: 1, seconds: 1 }, options });
const bad = (f: () => void, re: RegExp) => assert.throws(f, (e: { code?: string; message: string }) => e.code === "FF_ERR_BAD_JOB" && re.test(e.message));

test("targets must resolve under a root; symlinks out of it and ../ are refused; generator names pass", () => {
  const policy = { targetRoots: [join(dir, "targets")] };
  checkJobPolicy(job("node", join(dir, "targets", "t.js")), policy);
  bad(() => checkJobPolicy(job("node", join(dir, "elsewhere", "x.js")), policy), /outside this worker's target roots/);
  bad(() => checkJobPolicy(job("node", join(dir, "targets", "link.js")), policy), /outside/);
  bad(() => checkJobPolicy(job("node", join(dir, "targets", "..", "elsewhere", "x.js")), policy), /outside/);
  bad(() => checkJobPolicy(job("node", join(dir, "targets-evil", "t.js")), policy), /outside/);
  checkJobPolicy(job("wasm", "small"), policy);
  bad(() => checkJobPolicy(job("node", "small"), policy), /outside/);
  checkJobPolicy(job("node", join(dir, "elsewhere", "x.js")), {}); // no roots configured: any target
});

test("optimizers: only the listed commands and directories, verbatim; an empty list allows none", () => {
  const policy = { allowedOptimizers: ["wasm-opt -O2", "/opt/binaryen-90"] };
  checkJobPolicy(job("wasm", "small", { optimizerCmd: "wasm-opt -O2" }), policy);
  checkJobPolicy(job("wasm", "small", { optimizer: "/opt/binaryen-90" }), policy);
  bad(() => checkJobPolicy(job("wasm", "small", { optimizerCmd: "wasm-opt -O2; id > /tmp/p" }), policy), /optimizerCmd .* is not in this worker's allowed optimizers/);
  bad(() => checkJobPolicy(job("wasm", "small", { optimizer: "/tmp/evil" }), policy), /optimizer "\/tmp\/evil"/);
  bad(() => checkJobPolicy(job("wasm", "small", { optimizerCmd: "wasm-opt -O2" }), { allowedOptimizers: [] }), /not in/);
  bad(() => checkJobPolicy(job("wasm", "small", { optimizerCmd: "anything" }), {}), /none listed/); // none by default
  checkJobPolicy(job("wasm", "small"), {});
});

test("replay and minimize jobs: their reproducer's optimizer is checked too (none allowed by default)", () => {
  const replay = (reproducerOptions: Record<string, unknown>) =>
    parseJob({ jobId: "replay-b", campaignId: "c", engine: "wasm", kind: "replay", bucketId: "b", target: { name: "t", path: "small" }, budget: { runs: 1, seconds: 1 }, options: {}, reproducer: { engine: "wasm", options: reproducerOptions } });
  bad(() => checkJobPolicy(replay({ optimizerCmd: "touch /tmp/pwned" }), {}), /optimizerCmd "touch \/tmp\/pwned" is not in this worker's allowed optimizers/);
  bad(() => checkJobPolicy(replay({ optimizerCmd: "touch /tmp/pwned" }), { allowedOptimizers: [] }), /not in/);
  checkJobPolicy(replay({ optimizerCmd: "wasm-opt -O2" }), { allowedOptimizers: ["wasm-opt -O2"] });
  checkJobPolicy(replay({}), {});
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
