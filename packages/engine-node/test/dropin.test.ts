// `fuzzfarm node` as a drop-in `node`: no wall-clock limit by default (a hang
// is a program that stops making progress, not one that runs long), child
// node processes run under the fuzzer with their own seeds and traces, and
// programs whose worker threads are unref'd exit as they do under node.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FIXTURES } from "./helpers";
import { parseCliArgs } from "../src/internal/cli-args";

const BIN = fileURLToPath(new URL("../bin/fuzzfarm-node.mjs", import.meta.url));
const DIR = join(FIXTURES, "dropin");
const tmp = mkdtempSync(join(tmpdir(), "ff-dropin-test-"));
// node:test files run as programs here, not as children of this runner
const env = { ...process.env };
delete env.NODE_TEST_CONTEXT;

function cli(args: string[], killAfterMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const c = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"], env });
    let stdout = "", stderr = "";
    const kill = setTimeout(() => c.kill("SIGKILL"), killAfterMs);
    c.stdout.on("data", (d) => { stdout += d; });
    c.stderr.on("data", (d) => { stderr += d; });
    c.on("close", (code) => { clearTimeout(kill); resolve({ code, stdout, stderr, ms: Date.now() - t0 }); });
  });
}

test("no wall-clock limit by default; a run longer than --stall that keeps making progress is no hang", async () => {
  const o = parseCliArgs(["x.js"]);
  assert.equal(o.timeoutMs, 0);
  assert.ok(o.stallMs > 0);
  const r = await cli(["--strategy", "none", "--stall", "500", join(DIR, "long-run.cjs")]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "done 9 steps in >=2400 ms\n");
});

test("a program that waits with nothing left to deliver is a hang after --stall ms (exit 124, pending listed)", async () => {
  const r = await cli(["--seed", "3", "--stall", "800", join(DIR, "stalled-server.cjs")]);
  assert.equal(r.code, 124, r.stderr);
  assert.equal(r.stdout, "listening\n");
  assert.match(r.stderr, /hang: no callback was delivered for 800 ms/);
  assert.match(r.stderr, /server listening on \d+ created at .*stalled-server\.cjs:3/);
});

test("child node processes (spawn of execPath, fork, execFileSync, execSync) run under the fuzzer with derived seeds and own traces", async () => {
  const plain = spawnSync(process.execPath, [join(DIR, "spawn-parent.cjs")], { encoding: "utf8", env });
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(plain.stdout, /spawn: fuzzed=false/);
  const seeds: number[][] = [];
  for (const run of [1, 2]) {
    const traceOut = join(tmp, `parent-${run}.json`);
    const r = await cli(["--seed", "11", "--trace-out", traceOut, join(DIR, "spawn-parent.cjs")]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, plain.stdout.replace(/fuzzed=false/g, "fuzzed=true"));
    const parent = JSON.parse(readFileSync(traceOut, "utf8"));
    assert.equal(parent.children.length, 4);
    // the parent's trace holds only its own callbacks: none from spawn-child.cjs
    assert.ok(parent.events.every((e: { site: string }) => !e.site.includes("spawn-child")));
    const files = readdirSync(tmp).filter((f) => f.startsWith(`parent-${run}.json.child-`)).sort();
    assert.equal(files.length, 4);
    const childSeeds = files.map((f) => {
      const t = JSON.parse(readFileSync(join(tmp, f), "utf8"));
      assert.ok(t.events.some((e: { site: string }) => e.site.includes("spawn-child.cjs")), `${f} has the child's own events`);
      assert.ok(t.events.every((e: { site: string }) => !e.site.includes("spawn-parent")));
      return t.seed as number;
    });
    assert.equal(new Set(childSeeds).size, 4, "each child has its own seed");
    assert.ok(!childSeeds.includes(11));
    seeds.push(childSeeds);
  }
  assert.deepEqual(seeds[0], seeds[1], "child seeds derive deterministically from the run's seed");
});

test("a node:test file with an unref'd worker-thread transport passes and exits as under node", async () => {
  // Before the fix the program exited at once but the launcher spent minutes
  // on the trace's race pairs: 30,000 pending immediates of one site walked
  // pairwise. The kill-after makes that a failure here.
  const file = join(DIR, "worker-transport.test.cjs");
  const plain = spawnSync(process.execPath, [file], { encoding: "utf8", env });
  assert.equal(plain.status, 0, plain.stdout);
  // pass-through (no trace asked for) and recording every callback
  for (const extra of [[], ["--trace-out", join(tmp, "worker-transport.json")]]) {
    const r = await cli(["--strategy", "none", ...extra, file], 45_000);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^# pass 1$/m);
    assert.match(r.stdout, /^# fail 0$/m);
  }
  const trace = JSON.parse(readFileSync(join(tmp, "worker-transport.json"), "utf8"));
  assert.ok(trace.events.filter((e: { kind: string }) => e.kind === "immediate").length >= 30_000);
});
