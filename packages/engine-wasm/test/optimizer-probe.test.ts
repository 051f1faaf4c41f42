// Optimizers of any age (issue 25, item 5). An old binaryen.js release, as binaryen 48-51 behave: no
// `Features` object, and reading a module with an instruction it does not know ends the whole process
// (`Fatal: error in parsing wasm binary`, then exit). Such a package is built here over the project's own
// binaryen.js (the npm releases themselves are in bench/wasm-real-bugs, not needed by a test).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EngineResult, parseJob, type JobFor } from "@fuzzfarm/protocol";
import { probeOptimizer, wasmEngine } from "../src/index";

const CLI = new URL("../../../apps/cli/bin/fuzzfarm.mjs", import.meta.url).pathname;
const ctx = () => ({ signal: new AbortController().signal, workDir: "/tmp", onProgress: () => {} });
const job = (options: Record<string, unknown>) =>
  parseJob({ jobId: "j1", campaignId: "c1", engine: "wasm", target: { name: "t", path: "small" }, budget: { runs: 24, seconds: 60 }, options }) as JobFor<"wasm">;

/** A binaryen package that exits the process on modules holding `fatalOn` (a byte pair: prefix, opcode). */
function oldRelease(fatalOn: string): string {
  const dir = mkdtempSync(join(tmpdir(), "ff-old-binaryen-"));
  const real = createRequire(import.meta.url).resolve("binaryen");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "binaryen", version: "48.0.0-like", type: "module", main: "index.js" }));
  writeFileSync(join(dir, "index.js"), `import real from ${JSON.stringify(pathToFileURL(real).href)};
const fatal = (bytes) => { const s = Buffer.from(bytes).toString("hex"); return ${fatalOn}.some((op) => { for (let i = s.indexOf(op); i >= 0; i = s.indexOf(op, i + 1)) if (i % 2 === 0) return true; return false; }); };
export default { readBinary(bytes) {
    if (fatal(bytes)) { process.stderr.write("[parse exception: bad node code 252]Fatal: error in parsing wasm binary\\n"); process.exit(1); }
    const m = real.readBinary(bytes);
    m.setFeatures(real.Features.All); // what such a release reads, it reads with every feature it knows
    return m;
  }, setOptimizeLevel: (n) => real.setOptimizeLevel(n) };\n`);
  return dir;
}

test("an old release without Features that exits on bulk memory: programs come without it, the job runs, nothing is a finding", async () => {
  const dir = oldRelease(`["fc0b", "fc0a"]`); // memory.fill, memory.copy
  try {
    const probe = await probeOptimizer({ path: dir, cmd: null });
    assert.match(probe.missing.bulkMemory ?? "", /Fatal: error in parsing wasm binary/);
    assert.deepEqual(Object.keys(probe.missing), ["bulkMemory"]);
    const r = EngineResult.parse(await wasmEngine.run(job({ runsPerProgram: 2, strategy: "race", optimizer: dir }), ctx()));
    assert.equal(r.error, undefined);
    assert.ok(r.execs >= 24, `execs ${r.execs}`);
    assert.deepEqual(r.findings.map((f) => f.message), []);
    assert.equal((r.corpus[0]?.strategy.generator as { bulkMemory?: boolean } | undefined)?.bulkMemory, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a release that cannot read atomics: the job fails with FF_ERR_CONFIG naming it, and `wasm run` says so in one line", async () => {
  const dir = oldRelease(`["fe"]`); // the atomics prefix
  try {
    const r = await wasmEngine.run(job({ runsPerProgram: 2, optimizer: dir }), ctx());
    assert.equal(r.error?.kind, "bad-job");
    assert.match(r.error!.message, /cannot optimize a threads module .*Fatal: error in parsing wasm binary/);
    const out = await new Promise<{ code: number | null; stderr: string }>((res) =>
      execFile(process.execPath, [CLI, "wasm", "run", "--count", "1", "--runs", "2", "--optimizer", dir], (e, _o, stderr) => res({ code: e ? (e.code as number) : 0, stderr })),
    );
    assert.equal(out.code, 2);
    const lines = out.stderr.trim().split("\n");
    assert.equal(lines.length, 1, out.stderr);
    assert.match(lines[0]!, /FF_ERR_CONFIG: --optimizer .* cannot optimize a threads module/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
