// The engines a worker offers (createWasmEngine options, runner/offered.ts): the worker's operator names
// command engines and the Deno / Bun binaries; a job picks a configuration id among them. A configured
// command engine (this repo's runner under this Node, a real process speaking the runner protocol) runs a
// job that names it; an id the worker does not offer refuses the job with FF_ERR_BAD_JOB before any process
// starts; bad configurations are FF_ERR_CONFIG; the start-up probe runs the command engines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EngineResult, isFuzzFarmError, parseJob, type JobFor } from "@fuzzfarm/protocol";
import { createWasmEngine, RUNNER_PATH } from "../src/index";

const dir = mkdtempSync(join(tmpdir(), "ff-offered-"));
const job = (engines: string[], runs = 12) =>
  parseJob({ jobId: "j-offered", campaignId: "c", engine: "wasm", target: { name: "t", path: "small" }, budget: { runs, seconds: 60 }, options: { strategy: "token", runsPerProgram: 2, engines } }) as JobFor<"wasm">;
const ctx = () => ({ signal: new AbortController().signal, workDir: dir });

/** A command engine: this repo's runner under this Node, with a preload that logs the Node flags of each start to `log`. */
function loggedRunner(log: string): string[] {
  const preload = `${log}.cjs`;
  writeFileSync(preload, `if (require("node:worker_threads").isMainThread) require("node:fs").appendFileSync(${JSON.stringify(log)}, "start " + process.execArgv.filter((a) => a.startsWith("--") && a !== "--require").join(" ") + "\\n");\n`);
  return [process.execPath, "--require", preload, RUNNER_PATH];
}

test("a configured command engine runs a job that names it (and its tier); results compare with the baseline, all agree", async () => {
  const log = join(dir, "mine.log");
  const e = createWasmEngine({ commands: [{ name: "mine", command: loggedRunner(log), tiers: { liftoff: ["--liftoff-only"] } }] });
  const offered = e.capabilities!();
  for (const id of ["default", "liftoff", "turbofan", "mine", "mine:liftoff"]) assert.ok(offered.includes(id), `${id} in ${offered}`);
  const r = EngineResult.parse(await e.run(job(["mine", "mine:liftoff"]), ctx()));
  assert.equal(r.error, undefined);
  assert.deepEqual(r.findings, []);
  assert.ok(r.strategyYield["engine:mine"]!.execs >= 2 && r.strategyYield["engine:mine:liftoff"]!.execs >= 2, JSON.stringify(r.strategyYield));
  // One runner per configuration, started from the configured argv; the tier's arguments come right after its first word.
  assert.deepEqual(readFileSync(log, "utf8").trim().split("\n").map((l) => l.trim()).sort(), ["start", "start --liftoff-only"]);
});

test("an id the worker does not offer refuses the job with FF_ERR_BAD_JOB naming what it offers; nothing starts", async () => {
  const log = join(dir, "refused.log");
  const e = createWasmEngine({ commands: [{ name: "mine", command: loggedRunner(log) }], denoPath: null });
  for (const engines of [["other"], ["mine", "other"], ["deno"], ["mine:liftoff"], [`mine=/bin/sh -c "touch ${log}"`], [RUNNER_PATH]]) {
    assert.throws(() => e.checkJob!(job(engines)), (err: unknown) => isFuzzFarmError(err) && err.code === "FF_ERR_BAD_JOB" && /^unknown engine configuration '.*' on this worker; it offers: default, liftoff, turbofan, bun, .*mine$/.test(err.message.split(" (command")[0]!) && !err.message.includes("\n"));
    const r = await e.run(job(engines), ctx());
    assert.equal(r.error?.kind, "bad-job", JSON.stringify(engines));
    assert.match(r.error!.message, /unknown engine configuration/);
    assert.equal(r.execs, 0);
  }
  assert.equal(existsSync(log), false, "no runner started");
});

test("deno and bun binaries: a configured path is used, a missing one is not offered, null offers none", () => {
  const names = (o: Parameters<typeof createWasmEngine>[0]) => createWasmEngine(o).capabilities!().filter((id) => /^(deno|bun)/.test(id));
  assert.deepEqual(names({}), ["deno", "deno:liftoff", "deno:turbofan", "bun", "bun:ipint", "bun:bbq", "bun:jit"]);
  assert.deepEqual(names({ denoPath: null, bunPath: join(dir, "no-such-bun") }), []);
  const fake = join(dir, "deno");
  writeFileSync(fake, "");
  assert.deepEqual(names({ denoPath: fake, bunPath: null }), ["deno", "deno:liftoff", "deno:turbofan"]);
});

test("bad command engine configurations are FF_ERR_CONFIG", () => {
  const bad = (commands: { name: string; command: string[]; tiers?: Record<string, string[]> }[], re: RegExp) =>
    assert.throws(() => createWasmEngine({ commands }), (e: unknown) => isFuzzFarmError(e) && e.code === "FF_ERR_CONFIG" && re.test(e.message));
  bad([{ name: "deno", command: ["x"] }], /must be lowercase/);
  bad([{ name: "liftoff", command: ["x"] }], /must be lowercase/);
  bad([{ name: "a b", command: ["x"] }], /must be lowercase/);
  bad([{ name: "x", command: [] }], /empty command/);
  bad([{ name: "x", command: ["a"] }, { name: "x", command: ["b"] }], /twice/);
  bad([{ name: "x", command: ["a"], tiers: { "a:b": [] } }], /bad tier/);
});

test("the start-up probe runs the configured command engines: one that does not speak the runner protocol fails it", async () => {
  await createWasmEngine({ commands: [{ name: "mine", command: [process.execPath, RUNNER_PATH] }] }).selfTest();
  await assert.rejects(createWasmEngine({ commands: [{ name: "broken", command: ["/bin/false"] }] }).selfTest(), (e: unknown) => isFuzzFarmError(e) && e.code === "FF_ERR_ENGINE_SELFTEST" && /engine broken \(unknown\) cannot run the wasm runner: no output \(exit code 1\)/.test(e.message));
  // A binary that is not there is one clear error, not an unhandled spawn error that ends the worker.
  await assert.rejects(createWasmEngine({ commands: [{ name: "gone", command: [join(dir, "no-such-runner")] }] }).selfTest(), (e: unknown) => isFuzzFarmError(e) && e.code === "FF_ERR_ENGINE_SELFTEST" && /engine gone: cannot start .*no-such-runner: ENOENT/.test(e.message));
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
