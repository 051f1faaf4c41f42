// Engines as a dimension, on the real binaries from npm (Deno 2.9.6 / V8 15.0, Bun 1.4.4 / JSC)
// and real worker threads: the cross-engine oracle names Node 20's Liftoff as the odd one out on
// the wait32 reproduction, a command engine follows the runner protocol, generated programs agree
// across engines, and a generated shared-everything program runs to its known result on Deno.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { compareEngines } from "../src/internal/cross-engine";
import { parseGenConfig } from "../src/internal/gen/config";
import { generate } from "../src/internal/gen/generate";
import { Harness } from "../src/internal/harness";
import { loadLitmus } from "../src/internal/litmus/litmus";
import { CHILD } from "../src/internal/runner/supervisor";
import { npmEngineBinary } from "../src/internal/runner/engines";
import { wasmEngine } from "../src/internal/engine";
import { WasmOptions, type EngineRunContext, type JobFor } from "@fuzzfarm/protocol";

const LIFTOFF = fileURLToPath(new URL("../../../examples/wasm/liftoff-wait32-clobber.wat", import.meta.url));

test("deno and bun binaries come from the pinned npm packages", () => {
  assert.ok(npmEngineBinary("deno"), "npm ci installs @deno/linux-x64-glibc");
  assert.ok(npmEngineBinary("bun"), "npm ci installs @oven/bun-linux-x64");
});

test("cross-engine: Node 20's Liftoff is the odd one out on the wait32 reproduction; a command engine speaks the protocol", async () => {
  const cmd = { kind: "cmd" as const, name: "node-cmd", command: [process.execPath, "--no-liftoff", CHILD], tiers: { liftoff: ["--liftoff-only"] } };
  const h = new Harness({}, { engines: [cmd] });
  try {
    const m = await loadLitmus(LIFTOFF);
    const r = await compareEngines(h, m, ["liftoff", "turbofan", "deno:liftoff", "bun", "bun:ipint", "node-cmd"], { runs: 2 });
    const by = Object.fromEntries(r.configs.map((c) => [c.id, Object.keys(c.outcomes).join(",")]));
    assert.deepEqual(by, { liftoff: "0", turbofan: "77", "deno:liftoff": "77", bun: "77", "bun:ipint": "77", "node-cmd": "77" });
    assert.equal(r.odd.length, 1);
    assert.equal(r.odd[0]!.engine, "node");
    assert.deepEqual(r.odd[0]!.configs, ["liftoff"]);
    assert.match(r.odd[0]!.message, /V8 11\.3/);
    assert.match(r.configs.find((c) => c.id === "deno:liftoff")!.version, /deno 2\.9\.6.*v8 15\.0/);
  } finally {
    await h.close();
  }
});

test("generated programs: the engine oracle runs them on Deno and Bun under the same schedules, all agree", async () => {
  const h = new Harness();
  try {
    const p = generate(7, parseGenConfig({ preset: "small" }));
    const r = await h.check(p, { runs: 4, strategy: "token", tiers: false, optLevels: [], engines: ["deno", "bun:bbq"], crossRuns: 2 });
    assert.deepEqual(r.findings, []);
    assert.equal(r.execs, 4 + 2 + 2);
    assert.deepEqual(Object.keys(r.outcomes), [r.expected]);
  } finally {
    await h.close();
  }
});

test("farm job: options.engines runs the programs on Deno too and reports per-engine yield", async () => {
  const options = WasmOptions.parse({ strategy: "token", runsPerProgram: 2, seedStart: 0, engines: ["deno"] });
  const job = { engine: "wasm", jobId: "j-engines", campaignId: "c", kind: "fuzz", target: { name: "small", path: "small", version: "v" }, budget: { runs: 12, seconds: 60 }, seeds: [], options } as JobFor<"wasm">;
  const r = await wasmEngine.run(job, { signal: new AbortController().signal } as EngineRunContext);
  assert.equal(r.error, undefined);
  assert.deepEqual(r.findings, []);
  assert.ok(r.strategyYield!["engine:deno"]!.execs >= 4, JSON.stringify(r.strategyYield));
});

test("shared-everything: a generated program with shared structs/arrays and their atomic accessors runs on Deno (V8 15) to its known result", async () => {
  const h = new Harness({}, { v8Flags: ["--experimental-wasm-shared"] });
  try {
    const p = generate(3, parseGenConfig({ sharedEverything: true }));
    assert.ok(p.sharedGlobals > 0);
    const r = await h.check(p, { base: "deno", runs: 4, strategy: "token", tiers: false, optLevels: ["O2"], engines: ["deno:liftoff"], crossRuns: 2 });
    assert.deepEqual(r.findings, []);
    assert.equal(r.expected.split(";").length, p.cells.length + 3, "the digest of the shared-everything operations is part of the result");
    assert.deepEqual(Object.keys(r.outcomes), [r.expected]);
    // Node 20's V8 rejects the same module: it is the shared-everything lowering that runs.
    await assert.rejects(h.check(p, { runs: 1, strategy: "token", tiers: false, optLevels: [] }), /WebAssembly|type form|signature/);
  } finally {
    await h.close();
  }
});
