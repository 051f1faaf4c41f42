// `fuzzfarm node` end to end through the package's bin: behaves like node,
// reports hangs, writes traces and reports, replays and minimizes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FIXTURES, EXAMPLES_DIR } from "./helpers";

const BIN = fileURLToPath(new URL("../bin/fuzzfarm-node.mjs", import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "ff-cli-test-"));

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "";
    c.stdout.on("data", (d) => { stdout += d; });
    c.stderr.on("data", (d) => { stderr += d; });
    c.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

test("--help documents every strategy and its parameters; usage errors exit 2", async () => {
  const h = await cli(["--help"]);
  assert.equal(h.code, 0);
  for (const word of ["shuffle", "delay", "demux", "pct", "horizon", "late", "mix", "--max-delay", "--delay-prob", "--depth", "--seed", "--timeout", "--trace-out", "--replay", "--report", "--minimize"]) {
    assert.ok(h.stdout.includes(word), `help mentions ${word}`);
  }
  assert.equal((await cli(["--strategy", "nope", "x.js"])).code, 2);
  assert.equal((await cli([])).code, 2);
  assert.equal((await cli([join(FIXTURES, "does-not-exist.js")])).code, 2);
});

test("same stdout, stderr and exit code as node (CommonJS, ESM, TypeScript)", async () => {
  const plain = spawnSync(process.execPath, [join(FIXTURES, "echo.cjs"), "a", "b"], { encoding: "utf8" });
  for (const strategy of ["shuffle", "delay", "pct"]) {
    const r = await cli(["--strategy", strategy, "--seed", "5", join(FIXTURES, "echo.cjs"), "a", "b"]);
    assert.equal(r.code, plain.status);
    assert.equal(r.stdout, plain.stdout);
    assert.ok(r.stderr.startsWith(plain.stderr), r.stderr);
  }
  const esm = await cli(["--seed", "1", join(FIXTURES, "esm.mjs")]);
  assert.equal(esm.code, 0, esm.stderr);
  assert.equal(esm.stdout, "esm ok true\n");
  const ts = await cli(["--seed", "1", join(FIXTURES, "typed.ts")]);
  assert.equal(ts.code, 0, ts.stderr);
  assert.equal(ts.stdout, "ts ok true\n");
});

test("a hang exits 124 and lists the pending timers and handles", async () => {
  const r = await cli(["--timeout", "800", join(FIXTURES, "hang.cjs")]);
  assert.equal(r.code, 124);
  assert.match(r.stderr, /hang: the program did not finish within 800 ms/);
  assert.match(r.stderr, /interval 1000 ms set at .*hang\.cjs:3/);
});

test("trace, report, replay and minimize on a failing example", async () => {
  const script = join(EXAMPLES_DIR, "socket-timeout-vs-close.js");
  const traceFile = join(tmp, "t.json");
  const reportFile = join(tmp, "r.json");
  const found = await cli(["--strategy", "mix", "--seed", "1", "--runs", "100", "--trace-out", traceFile, "--report", reportFile, script]);
  assert.notEqual(found.code, 0, "a failure within 100 runs");
  assert.match(found.stderr, /failure with --strategy mix --seed \d+/);
  const trace = JSON.parse(readFileSync(traceFile, "utf8"));
  assert.ok(trace.events.length > 3);
  for (const e of trace.events) {
    assert.equal(typeof e.kind, "string");
    assert.equal(typeof e.async, "number");
    assert.equal(typeof e.trigger, "number");
    assert.match(e.site, /:\d+:\d+$|^internal$/);
  }
  assert.ok(trace.events.some((e: { site: string }) => e.site.includes("socket-timeout-vs-close.js:")));
  const report = JSON.parse(readFileSync(reportFile, "utf8"));
  assert.equal(report.outcome.kind, "crash");
  assert.equal(typeof report.seed, "number");
  assert.match(report.fingerprint, /^[0-9a-f]{16}$/);
  assert.ok(report.racePairCount > 0 && Array.isArray(report.racePairs));
  assert.ok(Object.keys(report.coverage).some((f) => f.endsWith("socket-timeout-vs-close.js")));

  let reproduced = 0;
  const misses: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await cli(["--replay", traceFile, script]);
    if (r.code === found.code && /callback called 2 times/.test(r.stderr)) reproduced++;
    else misses.push(`exit ${r.code}: ${r.stderr.trim().split("\n").slice(-3).join(" | ")}`);
  }
  const recorded = `${trace.strategy.name} seed ${trace.seed}: ${trace.events.map((e: { seq: number; kind: string; held: boolean; t: number; tp?: boolean }) => `${e.seq}:${e.kind}${e.held ? "*" : ""}${e.tp ? "+" : ""}@${e.t}`).join(" ")}`;
  assert.ok(reproduced >= 2, `replay reproduced ${reproduced}/3 (found with exit ${found.code}; ${recorded}); misses: ${misses.join("; ")}`);

  const m = await cli(["--minimize", traceFile, script]);
  assert.equal(m.code, 0, m.stderr);
  assert.match(m.stdout, /minimal perturbation: \d+ of \d+ held callbacks/);
  assert.match(m.stdout, /delayed past/);
  assert.ok(existsSync(traceFile.replace(/\.json$/, ".min.json")));
});
