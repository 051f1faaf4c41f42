// The built `fuzzfarm node script.js` runs the program in its own process
// (engine-node's in-process.ts, apps/cli/src/entry.ts) when no option needs a
// parent. These checks hold it to what the spawned run gives: node's stdout,
// stderr and exit code, the preload installed with one thread-pool thread,
// hang reports, fuzzed child processes, the failure line; and they check that
// options needing a parent still spawn. Built into a private folder, so a
// concurrent build of apps/cli/dist (package.test.ts) does not disturb it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "./helpers";

const OUT = join(REPO, ".fuzzfarm", `test-build-${process.pid}`);
const BIN = join(OUT, "fuzzfarm.cjs");
const dir = mkdtempSync(join(tmpdir(), "ff-in-process-"));
/** The CLI's temporary files go here: nothing may be left behind. */
const cliTmp = join(dir, "tmp");
const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: cliTmp };
delete env.NODE_OPTIONS;
delete env.NODE_TEST_CONTEXT;

interface Ran { code: number | null; signal: string | null; stdout: string; stderr: string; pid: number }
function ran(cmd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { cwd: dir, env: { ...env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "";
    c.stdout.on("data", (d) => { stdout += d; });
    c.stderr.on("data", (d) => { stderr += d; });
    c.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, pid: c.pid! }));
  });
}
const node = (file: string, ...args: string[]) => ran(process.execPath, [file, ...args]);
const fuzzfarm = (...args: string[]) => ran(process.execPath, [BIN, "node", ...args]);
const file = (name: string, text: string) => { writeFileSync(join(dir, name), text); return join(dir, name); };
const FAILURE_LINE = /^fuzzfarm node: failure with --strategy mix --seed 5 \(mix:\w+, fingerprint [0-9a-f]{16}\)$/m;

before(() => {
  mkdirSync(cliTmp);
  const b = spawnSync(process.execPath, [join(REPO, "scripts", "build.mjs"), "--out", OUT], { encoding: "utf8" });
  assert.equal(b.status, 0, b.stderr);
});
after(() => {
  rmSync(OUT, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

test("a plain run is the program's own process, with node's argv, stdout, stderr and exit code", async () => {
  const prog = file("echo.cjs", [
    "console.log(JSON.stringify({ argv: process.argv.slice(1), main: require.main === module, execArgv: process.execArgv }));",
    "require('fs').readFile(__filename, () => { console.error('to stderr'); process.stdout.write(`pid ${process.pid}\\n`); process.exitCode = 3; });",
  ].join("\n"));
  const plain = await node(prog, "a", "b");
  const r = await fuzzfarm("--seed", "5", prog, "a", "b");
  assert.equal(r.code, 3);
  assert.equal(r.stdout, plain.stdout.replace(`pid ${plain.pid}`, `pid ${r.pid}`), "same output; the pid printed is the command's own");
  const [own, ...rest] = r.stderr.split("\n").reverse().filter(Boolean);
  assert.match(own!, FAILURE_LINE);
  assert.equal(rest.reverse().join("\n") + "\n", plain.stderr);
  const esm = file("esm.mjs", [
    "import { createRequire } from 'node:module';",
    "await new Promise((r) => setTimeout(r, 5));",
    "console.log('esm', import.meta.url.endsWith('esm.mjs'), process.argv.length, process.mainModule, createRequire(import.meta.url).main);",
  ].join("\n"));
  const e = await fuzzfarm("--seed", "1", esm);
  assert.deepEqual([e.code, e.stdout, e.stderr], [0, "esm true 2 undefined undefined\n", ""]);
  assert.equal((await node(esm)).stdout, e.stdout);
});

test("the preload is installed with one thread-pool thread, as in the spawned run", async () => {
  const prog = file("threads.cjs", "require('fs').stat(__filename, () => console.log(process.env.UV_THREADPOOL_SIZE, require('fs').readdirSync('/proc/self/task').length, Object.keys(require.cache).some((f) => f.includes('preload'))));\n");
  const inProcess = await fuzzfarm("--seed", "2", prog);
  const spawned = await fuzzfarm("--seed", "2", "--timeout", "60000", prog); // --timeout needs a parent: spawned
  assert.equal(inProcess.code, 0, inProcess.stderr);
  assert.equal(inProcess.stdout, spawned.stdout);
  assert.match(inProcess.stdout, /^1 \d+ true\n$/);
});

test("an uncaught error: node's report without the interceptor's or the command's frames, then exit 1", async () => {
  const prog = file("boom.cjs", "setTimeout(() => require('fs').stat(__filename, () => { throw new Error('boom'); }), 1);\n");
  const plain = await node(prog);
  const r = await fuzzfarm("--seed", "5", prog);
  assert.equal(r.code, plain.code);
  assert.match(r.stderr, FAILURE_LINE);
  assert.ok(!r.stderr.includes(OUT), r.stderr);
  // the frames below the callback are the interceptor's delivery (as in the spawned run); every other line is node's
  const notFrames = (s: string) => s.split("\n").filter((l) => !/^\s+at /.test(l) && !FAILURE_LINE.test(l));
  assert.deepEqual(notFrames(r.stderr), notFrames(plain.stderr));
  // an error of the first turn: the stack below the program is node's own, frame for frame
  for (const [name, text] of [["top.cjs", "throw new Error('top');\n"], ["syntax.cjs", "let x = ;\n"], ["rejected.mjs", "await Promise.reject(new Error('r'));\n"]]) {
    const prog = file(name!, text!);
    const plainTop = await node(prog);
    const t = await fuzzfarm("--seed", "5", prog);
    assert.equal(t.code, plainTop.code, name);
    assert.equal(t.stderr.split("\n").filter((l) => !FAILURE_LINE.test(l)).join("\n"), plainTop.stderr, name);
  }
});

test("a stalled program is a hang (exit 124, pending listed); a signal ends it as it ends node", async () => {
  const server = file("stalled.cjs", "require('net').createServer().listen(0, () => console.log('listening'));\n");
  const h = await fuzzfarm("--seed", "3", "--stall", "800", server);
  assert.equal(h.code, 124, h.stderr);
  assert.equal(h.stdout, "listening\n");
  assert.match(h.stderr, /hang: no callback was delivered for 800 ms/);
  assert.match(h.stderr, /^fuzzfarm node: hang with --strategy mix --seed 3/m);
  const kill = file("kill.cjs", "setTimeout(() => process.kill(process.pid, 'SIGTERM'), 1);\nsetTimeout(() => {}, 5000);\n");
  const plain = await node(kill);
  // a signal leaves no exit listener to run: its config folder stays (in its own TMPDIR here), as the launcher's does when it is killed
  const k = await ran(process.execPath, [BIN, "node", "--seed", "1", kill], { TMPDIR: dir });
  assert.deepEqual([k.code, k.signal], [plain.code, plain.signal]);
  assert.equal(plain.signal, "SIGTERM");
});

test("child node processes run under the fuzzer; options that need a parent, and TypeScript, spawn", async () => {
  const child = file("child.cjs", "console.log(Object.keys(require.cache).some((f) => f.includes('preload')));\n");
  const parent = file("parent.cjs", [
    "const { execFileSync, fork } = require('child_process');",
    `process.stdout.write(execFileSync(process.execPath, [${JSON.stringify(child)}]));`,
    `fork(${JSON.stringify(child)});`,
  ].join("\n"));
  const c = await fuzzfarm("--seed", "4", parent);
  assert.deepEqual([c.code, c.stdout], [0, "true\ntrue\n"], c.stderr);

  const pid = file("pid.cjs", "console.log(process.pid);\n");
  const own = await fuzzfarm("--strategy", "none", pid);
  assert.equal(own.stdout, `${own.pid}\n`);
  for (const extra of [["--timeout", "60000"], ["--trace-out", join(dir, "t.json")], ["--runs", "2"]]) {
    const s = await fuzzfarm("--strategy", "none", ...extra, pid);
    assert.equal(s.code, 0, s.stderr);
    assert.notEqual(s.stdout.trim(), String(s.pid), `${extra[0]} runs in a child process`);
  }
  const ts = file("t.ts", "const n: number = 41;\nconsole.log('ts', n + 1);\n");
  const t = await fuzzfarm("--seed", "1", ts);
  assert.deepEqual([t.code, t.stdout], [0, "ts 42\n"], t.stderr);
  assert.deepEqual(readdirSync(cliTmp).filter((f) => !f.startsWith("tsx-")), [], "every run removed its temporary files");
});
