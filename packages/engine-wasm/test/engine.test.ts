// The Engine interface: self-test, a budgeted job, bad targets, minimization and reproduction.
import { test } from "node:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import assert from "node:assert/strict";
import { EngineResult, parseJob, WasmReproducer, type JobFor } from "@fuzzfarm/protocol";
import { generate, Harness, minimizeFinding, parseGenConfig, programToJson, wasmEngine } from "../src/index";

const ctx = () => ({ signal: new AbortController().signal, workDir: "/tmp", onProgress: () => {} });
const job = (path: string, options: Record<string, unknown> = {}, runs = 60) =>
  parseJob({ jobId: "j1", campaignId: "c1", engine: "wasm", target: { name: "t", path }, budget: { runs, seconds: 60 }, options }) as JobFor<"wasm">;

test("selfTest passes", async () => {
  await wasmEngine.selfTest();
});

test("a generator job returns a schema-valid result with features and corpus", async () => {
  const r = await wasmEngine.run(job("small", { runsPerProgram: 6, strategy: "race" }), ctx());
  const v = EngineResult.parse(r);
  assert.equal(v.error, undefined);
  assert.ok(v.execs >= 60);
  assert.ok(v.features.some((f) => f.startsWith("rf:")) && v.features.some((f) => f.startsWith("gen:")) && v.features.some((f) => f.startsWith("outcome:")));
  assert.ok(v.corpus.length > 0);
  assert.deepEqual(v.corpus[0]!.strategy.generator !== undefined, true);
});

test("a litmus job reports outcomes as features", async () => {
  const path = new URL("../../../examples/wasm/sb.wat", import.meta.url).pathname;
  const r = EngineResult.parse(await wasmEngine.run(job(path, { runsPerProgram: 10 }, 50), ctx()));
  assert.equal(r.findings.length, 0);
  assert.equal(r.features.filter((f) => f.startsWith("outcome:")).length, 3);
});

test("bad targets and options come back as `error`, not exceptions", async () => {
  assert.equal((await wasmEngine.run(job("nope-preset"), ctx())).error?.kind, "target-not-found");
  assert.equal((await wasmEngine.run(job("/tmp/missing.wasm"), ctx())).error?.kind, "target-not-found");
  // the job schema refuses them before any engine sees them (the coordinator parses payloads before enqueueing)
  assert.throws(() => job("small", { strategy: "zzz" }), /options\.strategy/);
  assert.throws(() => job("small", { generator: { threads: 100 } }), /options\.generator\.threads/);
  // and the engine still refuses them if a payload got past the schema
  const unchecked = (options: Record<string, unknown>): JobFor<"wasm"> => Object.assign(job("small"), { options: { ...job("small").options, ...options } });
  assert.equal((await wasmEngine.run(unchecked({ strategy: "zzz" }), ctx())).error?.kind, "bad-job");
  assert.equal((await wasmEngine.run(unchecked({ generator: { threads: 100 } }), ctx())).error?.kind, "bad-job");
});

test("minimization shrinks a failing program that still fails the same oracle; the reproducer replays", async () => {
  const h = new Harness();
  try {
    const cfg = parseGenConfig({});
    const p = generate(1001, cfg);
    const opts = { runs: 4, tiers: false, optLevels: [] as [], fault: { kind: "narrow" as const, where: "all" as const } };
    const r = await h.check(p, opts);
    const f = r.findings.find((x) => x.oracle === "schedule")!;
    assert.ok(f);
    const m = await minimizeFinding(h, p, f, opts, { deadline: performance.now() + 60_000 });
    const size = (q: typeof p) => JSON.stringify(programToJson(q)).length;
    assert.ok(size(m.program) < size(p) / 2, `${size(m.program)} vs ${size(p)}`);
    const again = await h.check(m.program, opts);
    assert.ok(again.findings.some((x) => x.oracle === "schedule"));
    const { toFinding } = await import("../src/internal/findings");
    const finding = toFinding(m, p, cfg, "token", { fault: opts.fault });
    const out = await wasmEngine.reproduce({ path: "default" }, finding.reproducer, ctx());
    assert.equal(out.kind === "oracle" && out.oracle, "schedule");
    const clean = await wasmEngine.reproduce({ path: "default" }, { ...finding.reproducer, options: { ...finding.reproducer.options, fault: null } }, ctx());
    assert.equal(clean.kind, "ok");
  } finally {
    await h.close();
  }
});

test("a finding's reproducer names the optimizer under test, so its replay runs that optimizer and not the project's own", async () => {
  // An optimizer under test that differs from the project's Binaryen: a binaryen package whose
  // optimize() crashes (a directory, as `-o optimizer=DIR`), and a command that fails (`-o optimizerCmd`),
  // each on generated programs only (modules exporting th0; the probe's small modules pass: an optimizer that fails on every
  // module is refused before the job runs, test/optimizer-probe.test.ts).
  // Each finding must replay with it; a replay with the project's own Binaryen would come back ok.
  const dir = mkdtempSync(join(tmpdir(), "ff-fake-binaryen-"));
  const real = createRequire(import.meta.url).resolve("binaryen");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "binaryen", version: "0.0.0-broken", type: "module", main: "index.js" }));
  writeFileSync(join(dir, "index.js"), `import real from ${JSON.stringify(pathToFileURL(real).href)};
const b = Object.create(real);
b.readBinary = (bytes) => { const m = real.readBinary(bytes); if (Buffer.from(bytes).includes("th0")) m.optimize = () => { throw new Error("broken optimizer"); }; return m; };
export default b;\n`);
  try {
    for (const optimizer of [{ optimizer: dir }, { optimizerCmd: `sh -c 'if grep -q th0 "$3"; then exit 1; fi; cp "$3" "$5"' x` }]) {
      const r = EngineResult.parse(await wasmEngine.run(job("small", { runsPerProgram: 2, strategy: "race", ...optimizer }, 2), ctx()));
      const f = r.findings.find((x) => x.kind === "oracle" && x.oracle.startsWith("optimizer@"));
      assert.ok(f, `an optimizer finding with ${JSON.stringify(optimizer)}: ${JSON.stringify(r.findings.map((x) => x.message))}`);
      const out = await wasmEngine.reproduce({ path: "small" }, WasmReproducer.parse(f.reproducer), ctx());
      assert.equal(out.kind === "oracle" && out.oracle, f.kind === "oracle" && f.oracle, `replay with ${JSON.stringify(optimizer)}: ${JSON.stringify(out)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a job names engines, never binaries: a path, a command spec or an unknown name is refused and nothing of it runs", async () => {
  // Only the worker's own configuration can add a command engine (createWasmEngine's options, from the worker's
  // FUZZFARM_WASM_ENGINES; the CLI's --cmd); a job's `engines` are names resolved against what the worker
  // offers: node tiers, deno[:tier], bun[:tier] and its configured command engines (test/offered-engines.test.ts).
  const marker = `/tmp/ff-engine-marker-${process.pid}`;
  for (const engines of [["/bin/sh"], [`sh -c "touch ${marker}"`], [JSON.stringify({ kind: "cmd", name: "x", command: ["touch", marker] })], ["x"]]) {
    const r = await wasmEngine.run(job("small", { runsPerProgram: 2, engines }, 4), ctx());
    assert.ok(r.error, `engines ${JSON.stringify(engines)} was accepted`);
    assert.match(r.error!.message, /unknown engine configuration/);
  }
  assert.equal((await import("node:fs")).existsSync(marker), false, "no engine command ran");
});
