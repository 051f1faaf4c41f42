// Issue 22: `fuzzfarm ci` the way a real project uses it: the installed
// tarball's command (`npm run pack`, installed with `npm i -D` into a project
// of its own, as apps/cli/test/package.test.ts does). A user's repository
// (an "origin" in a temp dir): a package with one real npm dependency (`ms`,
// installed from the registry with a package-lock.json), a fuzz target and a
// Node driver that require it; main has bug A, a pull request adds bug B (and
// bumps the package version, so its lockfile differs from main's: the base
// is installed with `npm ci`, not borrowed), a fix branch fixes A. Every run
// is a fresh clone at its own path, with its own `npm ci` and a fresh
// database, carrying only the state directory from the run before (what
// actions/cache does):
//   main:  1 bucket (A), exit 0;
//   PR:    1 new (B), 1 pre-existing (A, same id as main's run), exit 1, SARIF and reproducer files;
//   fix:   1 fixed (A), exit 0;
// and B's reproducer file reproduces in a fourth clone with no database.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sarifErrors } from "@fuzzfarm/github/testing";
import { REPO, testFarm, type CliRun } from "./helpers";
import { git } from "./pull-request-repo";

function sh(cmd: string, args: string[], cwd: string, timeoutMs = 120_000) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const p = spawn(cmd, args, { cwd, env: { ...process.env, NODE_OPTIONS: undefined } as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (out += d));
    const t = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    p.on("close", (code) => {
      clearTimeout(t);
      resolve({ code, out });
    });
  });
}

/** `npm run pack`'s tarball installed into a project of its own; returns its `fuzzfarm` entry. */
async function installedFuzzfarm(tmp: string): Promise<string> {
  const pack = await sh(process.execPath, [join(REPO, "scripts", "pack.mjs"), "--out", join(tmp, "pack")], REPO);
  assert.equal(pack.code, 0, pack.out);
  const tarball = pack.out.trim().split("\n").pop()!;
  const inst = join(tmp, "fuzzfarm-install");
  mkdirSync(inst, { recursive: true });
  writeFileSync(join(inst, "package.json"), JSON.stringify({ name: "ci-host", version: "1.0.0", private: true }));
  const i = await sh("npm", ["i", "-D", "--no-audit", "--no-fund", "--prefer-offline", "--omit=optional", tarball], inst, 180_000);
  assert.equal(i.code, 0, i.out);
  return join(inst, "node_modules", "fuzzfarm", "dist", "fuzzfarm.cjs");
}

/** The installed `fuzzfarm`, run from `cwd` (the user's checkout) as `npx fuzzfarm` would. */
function fuzzfarm(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 180_000): Promise<CliRun> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [bin, ...args], { cwd, env: { ...env, FUZZFARM_TEST: undefined, NODE_OPTIONS: undefined } as NodeJS.ProcessEnv });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    const t = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    p.on("close", (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

const LIB_A = `const ms = require("ms");
// Formats a record's age; main has bug A.
function age(data) {
  if (data.length > 0 && data[0] === 0x41) throw new RangeError("bug A: age of " + ms(60000));
  return ms(data.length * 1000);
}
module.exports = { age };
`;
const LIB_AB = LIB_A.replace("module.exports = { age };", `function unit(data) {
  if (data.length > 1 && data[1] === 0x42) throw new TypeError("bug B: unit " + ms("1m"));
  return ms(1000);
}
module.exports = { age, unit };
`);
const TARGET_A = `const { age } = require("./lib");
exports.fuzz = function fuzz(data) {
  age(data);
};
`;
const TARGET_AB = `const { age, unit } = require("./lib");
exports.fuzz = function fuzz(data) {
  age(data);
  unit(data);
};
`;
const DRIVER = `const ms = require("ms");
const { age } = require("./lib");
setTimeout(() => console.log(age(Buffer.from("xyz")), ms(2000)), 5);
`;

test("ci in a real project: npm dependency on both sides, clones at other paths with fresh databases, state carried; new / pre-existing / fixed; a reproducer file runs without a database", { timeout: 420_000 }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), "ffci-real-"));
  const farms: Awaited<ReturnType<typeof testFarm>>[] = [];
  try {
    // The user's repository, with `ms` from the registry and its lockfile.
    const bin = await installedFuzzfarm(tmp);
    const origin = join(tmp, "origin");
    git(tmp, "init", "-q", "-b", "main", origin);
    git(origin, "config", "user.email", "ci@example.invalid");
    git(origin, "config", "user.name", "ci");
    writeFileSync(join(origin, "package.json"), `${JSON.stringify({ name: "ages", version: "1.0.0", private: true, dependencies: { ms: "2.1.3" } }, null, 2)}\n`);
    const inst = await sh("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], origin);
    assert.equal(inst.code, 0, inst.out);
    writeFileSync(join(origin, ".gitignore"), "node_modules/\n");
    writeFileSync(join(origin, "lib.js"), LIB_A);
    writeFileSync(join(origin, "fuzz.js"), TARGET_A);
    writeFileSync(join(origin, "driver.js"), DRIVER);
    git(origin, "add", ".");
    git(origin, "commit", "-q", "-m", "main: ages with bug A");
    git(origin, "checkout", "-q", "-b", "pr");
    writeFileSync(join(origin, "lib.js"), LIB_AB);
    writeFileSync(join(origin, "fuzz.js"), TARGET_AB);
    for (const f of ["package.json", "package-lock.json"]) writeFileSync(join(origin, f), readFileSync(join(origin, f), "utf8").replaceAll('"version": "1.0.0"', '"version": "1.1.0"'));
    git(origin, "commit", "-q", "-am", "pr: unit() (bug B), version 1.1.0");
    git(origin, "checkout", "-q", "-b", "fix", "main");
    writeFileSync(join(origin, "lib.js"), LIB_A.replace('throw new RangeError("bug A: age of " + ms(60000));', "return ms(0);"));
    git(origin, "commit", "-q", "-am", "fix: bug A");
    // The driver requires the dependency too and runs under plain node in the origin.
    const drv = await sh(process.execPath, ["driver.js"], origin);
    assert.equal(drv.code, 0, drv.out);

    /** A fresh clone of `branch` at its own path, installed as the workflow does (`npm ci`). */
    const clone = async (name: string, branch: string) => {
      const dir = join(tmp, name, "checkout");
      git(tmp, "clone", "-q", "--branch", branch, origin, dir);
      const ci = await sh("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], dir);
      assert.equal(ci.code, 0, ci.out);
      return dir;
    };
    /** `fuzzfarm ci` in a clone with its own fresh database; the state directory copied from the run before. */
    const ciRun = async (dir: string, baseRef: string, stateFrom: string | null, extra: string[] = []) => {
      const farm = await testFarm();
      farms.push(farm);
      if (stateFrom) cpSync(join(stateFrom, ".fuzzfarm-state"), join(dir, ".fuzzfarm-state"), { recursive: true });
      const env = { ...farm.env, FUZZFARM_DATA_DIR: join(dir, ".fuzzfarm"), GITHUB_EVENT_PATH: "", GITHUB_BASE_REF: "" };
      const args = ["ci", "--target", join(dir, "fuzz.js"), "--workers", "1", "--replays", "2", "--time", "20s", "--job-seconds", "4s", "--base-ref", baseRef, "--json", "--sarif", join(dir, "..", "out.sarif"), "--summary", join(dir, "..", "out.md"), ...extra];
      const r = await fuzzfarm(bin, args, dir, env);
      const report = JSON.parse(r.stdout || "{}") as { buckets?: { id: string; class: string; title: string; signature: string; reproduce: string }[] };
      const count = (c: string) => (report.buckets ?? []).filter((b) => b.class === c);
      return { r, report, count, log: `${r.stdout}\n${r.stderr.slice(-4000)}` };
    };

    // main: bug A found, known from now on.
    const c1 = await clone("one", "main");
    const run1 = await ciRun(c1, "HEAD", null);
    assert.equal(run1.r.code, 0, run1.log);
    assert.equal(run1.report.buckets?.length, 1, run1.log);
    const a = run1.report.buckets![0]!;
    assert.match(a.title, /RangeError in age \(lib\.js\)/);
    assert.equal(git(c1, "status", "--porcelain"), "", "nothing left in the user's tree");

    // The pull request, in another clone at another path, a fresh database: B new, A pre-existing with main's id.
    const c2 = await clone("two", "pr");
    const run2 = await ciRun(c2, "origin/main", c1);
    assert.equal(run2.r.code, 1, run2.log);
    assert.equal(run2.count("new").length, 1, run2.log);
    assert.equal(run2.count("pre-existing").length, 1, run2.log);
    assert.equal(run2.count("pre-existing")[0]!.id, a.id, "one bug, one identity in any clone");
    const b = run2.count("new")[0]!;
    assert.match(b.title, /TypeError in unit \(lib\.js\)/);
    assert.match(run2.r.stderr, /base dependencies: installed with npm ci from package-lock\.json/);
    const sarifText = readFileSync(join(c2, "..", "out.sarif"), "utf8");
    const sarif = JSON.parse(sarifText);
    assert.deepEqual(sarifErrors(sarif), []);
    assert.equal(sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri, "lib.js");
    for (const text of [sarifText, readFileSync(join(c2, "..", "out.md"), "utf8"), run2.r.stdout]) assert.ok(!text.includes(tmp) && !text.includes("<tmp>"), "no checkout path in what the run wrote");
    const reproDir = join(c2, ".fuzzfarm-state", "reproducers");
    assert.deepEqual(readdirSync(reproDir).filter((n) => n.endsWith(".json")).sort(), [`${a.id}.json`, `${b.id}.json`].sort());
    assert.equal(b.reproduce, `npx fuzzfarm repro .fuzzfarm-state/reproducers/${b.id}.json`);
    assert.equal(git(c2, "status", "--porcelain"), "", "nothing left in the user's tree");

    // The fix branch: A replays on the base (main) and not on the head: fixed, exit 0.
    const c3 = await clone("three", "fix");
    const run3 = await ciRun(c3, "origin/main", c2, ["--time", "8s"]);
    assert.equal(run3.r.code, 0, run3.log);
    assert.equal(run3.count("fixed").length, 1, run3.log);
    assert.equal(run3.count("fixed")[0]!.id, a.id);
    assert.equal(run3.count("new").length, 0, run3.log);
    const stored = JSON.parse(readFileSync(join(c3, ".fuzzfarm-state", "buckets", `${a.id}.json`), "utf8"));
    assert.equal(stored.status, "fixed");
    assert.deepEqual(stored.history.map((e: { event: string }) => e.event), ["pre-existing", "pre-existing", "fixed"]);

    // B's reproducer file (the workflow's artifact), in a fourth clone of the PR, with no database at all.
    const c4 = await clone("four", "pr");
    const file = join(tmp, `${b.id}.json`);
    cpSync(join(reproDir, `${b.id}.json`), file);
    const noDb = { ...process.env, FUZZFARM_DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none", FUZZFARM_REDIS_URL: "redis://127.0.0.1:1" };
    const repRun = await fuzzfarm(bin, ["repro", file, "--runs", "2"], c4, noDb);
    const rep = { code: repRun.code, out: repRun.stdout + repRun.stderr };
    assert.equal(rep.code, 0, rep.out);
    assert.match(rep.out, new RegExp(`^${b.id} \\(uncaught: uncaught TypeError in unit \\(lib\\.js\\)\\): reproduced in 2/2 run\\(s\\)`));
    assert.ok(existsSync(join(reproDir, `${b.id}.input`)));
  } finally {
    for (const f of farms) await f.close().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  }
});
