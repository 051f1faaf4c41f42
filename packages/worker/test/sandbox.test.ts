// The target sandbox at package level: the start-up probe and the modes
// ("net" refuses to start without a working wrapper, "auto" falls back to
// "none", also for a non-root worker), and each engine's target processes
// started under the wrapper in their job's cwd. The wrapper is recorded by
// an extra `sh` that logs the network namespace and cwd of every target
// process before it execs it, so a spawn site that skipped the prefix would
// show up as a missing or host-namespace line. The node engine still finds
// an example race whose program serves HTTP on 127.0.0.1 (the namespace's
// own loopback); the input engine still finds a crash; wasm runners run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EngineResult, parseJob, type EngineRunContext, type JobFor } from "@fuzzfarm/protocol";
import { inputEngine } from "@fuzzfarm/engine-input";
import { nodeEngine } from "@fuzzfarm/engine-node";
import { wasmEngine } from "@fuzzfarm/engine-wasm";
import { jobSandbox, NET_SANDBOX_PREFIX, probeNetSandbox, resolveSandbox, type ResolvedSandbox } from "../src/index";

const linux = process.platform === "linux";
const RACES = fileURLToPath(new URL("../../../examples/node-races/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ff-sandbox-"));
const hostNet = linux ? readlinkSync("/proc/self/ns/net") : "";

test("modes: none is none; auto and net use the wrapper where it works; a broken wrapper is refused under net and left out under auto", async () => {
  assert.deepEqual(await resolveSandbox("none"), { name: "none", why: "configured", prefix: [] });
  const broken = { prefix: ["/nonexistent/unshare", "--net"] };
  const auto = await resolveSandbox("auto", broken);
  assert.equal(auto.name, "none");
  assert.match(auto.why, linux ? /cannot run \/nonexistent\/unshare: ENOENT/ : /Linux only/);
  await assert.rejects(resolveSandbox("net", broken), (e: { code?: string; message: string }) => e.code === "FF_ERR_CONFIG" && /sandbox "net" is not available here/.test(e.message));
  // `unshare --net` alone leaves loopback down: the probe sees no interface and says so
  if (linux) assert.match((await probeNetSandbox({ prefix: ["unshare", "--net", "--map-root-user"] }))!, /interfaces \[\], not loopback alone/);
  if (linux) assert.equal((await resolveSandbox("auto")).name, "fs", "bwrap and perl work on this machine: auto picks the fs level");
  if (linux) assert.equal((await resolveSandbox("net")).name, "net");
});

test("the wrapper works for a worker that is not root", { skip: (!linux || process.getuid?.() !== 0) && "needs Linux and root to switch to nobody" }, async () => {
  // with a non-root user's PATH (no sbin directories)
  const asNobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "PATH=/usr/local/bin:/usr/bin:/bin", ...NET_SANDBOX_PREFIX];
  assert.equal(await probeNetSandbox({ prefix: asNobody }), null);
});

/** A sandbox whose every target process first appends "<net namespace> <cwd>" to `log`. */
function recording(base: ResolvedSandbox, log: string): ResolvedSandbox {
  return { ...base, prefix: [...base.prefix, "/bin/sh", "-c", `echo "$(readlink /proc/self/ns/net) $PWD" >> '${log}' && exec "$@"`, "rec"] };
}

async function underSandbox<T>(name: string, run: (ctx: EngineRunContext) => Promise<T>): Promise<{ out: T; lines: string[]; cwd: string }> {
  const net = await resolveSandbox("net");
  const workDir = mkdtempSync(join(dir, `${name}-`));
  const log = join(dir, `${name}.log`);
  const sandbox = jobSandbox(recording(net, log), workDir);
  const out = await run({ signal: new AbortController().signal, workDir, sandbox });
  const lines = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
  return { out, lines, cwd: sandbox.cwd };
}

function assertSandboxed(name: string, lines: string[], cwd: string) {
  assert.ok(lines.length > 0, `${name}: no target process went through the wrapper`);
  for (const l of lines) {
    const [ns, pwd] = l.split(" ");
    assert.match(ns!, /^net:\[\d+\]$/);
    assert.notEqual(ns, hostNet, `${name}: a target process in the host's network namespace`);
    assert.equal(pwd, cwd, `${name}: cwd`);
  }
}

test("node engine: every target process (spawned and warm) in its own namespace; a race over HTTP on 127.0.0.1 is still found", { skip: !linux && "Linux only" }, async () => {
  const job = parseJob({
    jobId: "j-node", campaignId: "c", engine: "node", target: { name: "t", path: join(RACES, "http-read-modify-write.js") },
    options: { strategy: "mix", seedStart: 1, timeoutMs: 10_000 }, budget: { runs: 40, seconds: 90 },
  }) as JobFor<"node">;
  const { out, lines, cwd } = await underSandbox("node", (ctx) => nodeEngine.run(job, ctx));
  const r = EngineResult.parse(out);
  assert.equal(r.error, undefined);
  assert.ok(r.findings.length > 0, `the lost deposit was found (${r.execs} execs)`);
  assert.match(r.findings[0]!.message, /balance|deposit|lost|expected/i);
  // baseline + confirmations are spawned processes; the fuzzing runs go to warm hosts (one process each)
  assert.ok(lines.length >= 3, `${lines.length} target processes`);
  assertSandboxed("node", lines, cwd);

  // and from the inside: each run (warm or spawned) logs the namespace and cwd it sees itself
  const seen = join(dir, "node-seen.log");
  const probe = join(dir, "ns-probe.cjs");
  writeFileSync(probe, "const fs = require('node:fs'); fs.appendFileSync(process.argv[2], fs.readlinkSync('/proc/self/ns/net') + ' ' + process.cwd() + '\\n');\n");
  for (const warm of [1, 0]) {
    const small = parseJob({ jobId: "j-ns", campaignId: "c", engine: "node", target: { name: "t", path: probe }, options: { args: [seen], warm: warm === 1 }, budget: { runs: 6, seconds: 30 } }) as JobFor<"node">;
    rmSync(seen, { force: true });
    const inside = await underSandbox(`node-warm${warm}`, (ctx) => nodeEngine.run(small, ctx));
    const runs = readFileSync(seen, "utf8").trim().split("\n");
    assert.equal(runs.length, EngineResult.parse(inside.out).execs, `warm=${warm}: one line per run`);
    assertSandboxed(`node warm=${warm} (inside)`, runs, inside.cwd);
  }
});

test("input engine: executors in their own namespace; a crash is still found", { skip: !linux && "Linux only" }, async () => {
  const target = join(dir, "crashy.cjs");
  writeFileSync(target, "module.exports.fuzz = (d) => { if (d.length > 3 && d[0] === 0x41) throw new Error('boom in the sandbox'); };\n");
  const job = parseJob({ engine: "input", jobId: "j-input", campaignId: "c", target: { name: "t", path: target }, budget: { runs: 20_000, seconds: 8 }, options: {}, seeds: [{ id: "s", data: Buffer.from("AAAA").toString("base64") }] }) as JobFor<"input">;
  const { out, lines, cwd } = await underSandbox("input", (ctx) => inputEngine.run(job, ctx));
  const r = EngineResult.parse(out);
  assert.equal(r.error, undefined);
  assert.ok(r.findings.some((f) => /boom in the sandbox/.test(f.message)), JSON.stringify(r.findings.map((f) => f.message)));
  assertSandboxed("input", lines, cwd);
});

test("wasm engine: runner processes in their own namespace; a generator job runs", { skip: !linux && "Linux only" }, async () => {
  const job = parseJob({ jobId: "j-wasm", campaignId: "c", engine: "wasm", target: { name: "t", path: "small" }, budget: { runs: 24, seconds: 60 }, options: { runsPerProgram: 6, strategy: "race" } }) as JobFor<"wasm">;
  const { out, lines, cwd } = await underSandbox("wasm", (ctx) => wasmEngine.run(job, ctx));
  const r = EngineResult.parse(out);
  assert.equal(r.error, undefined);
  assert.ok(r.execs >= 24, `${r.execs} execs`);
  assertSandboxed("wasm", lines, cwd);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
