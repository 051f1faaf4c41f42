#!/usr/bin/env node
// Runs every test file of the monorepo in one `node --test` invocation, so
// the run ends with node's standard TAP summary (# pass N / # fail N).
//   node scripts/test.mjs                      all tests
//   node scripts/test.mjs packages/engine-node only tests under these folders (or these files)
// Test files: **/test/**/*.test.ts and **/test/**/*.test.mjs under apps/ and packages/.
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { readdirSync, statSync, existsSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const roots = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const extra = process.argv.slice(2).filter((a) => a.startsWith("-"));
const searchRoots = (roots.length ? roots : ["packages", "apps"]).map((r) => join(root, r));
// A word that is not a path is refused: `--test-name-pattern foo` (value after a space) once left node
// --test with no files, so it ran every file under a test/ folder, fixtures included (which then wrote
// where fixtures only write inside a sandbox).
for (const r of roots)
  if (!existsSync(join(root, r))) {
    console.error(`test: no such test file or folder: ${r} (give flag values with =, e.g. --test-name-pattern="a name")`);
    process.exit(2);
  }

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  if (statSync(dir).isFile()) return /\.test\.(ts|mjs)$/.test(dir) ? [...out, dir] : out;
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "fixtures" || name.startsWith(".")) continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else if (/\.test\.(ts|mjs)$/.test(name) && p.split("/").includes("test")) out.push(p);
  }
  return out;
}

// Two files at a time (FUZZFARM_TEST_CONCURRENCY overrides): many files
// spend their time waiting on fixed-length campaigns, Redis and PostgreSQL,
// and each uses its own database and queue prefix. Files that keep both
// cores busy are spread out so that two of them rarely run together: the
// list alternates one of them with the others.
const CPU_HEAVY = [
  "engine-node/test/conformance", "engine-node/test/examples", "apps/cli/test/repo-shape", "apps/cli/test/package",
  "engine-wasm/test/gen-memops", "engine-input/test/magic-bytes", "coordinator/test/triage-evidence", "apps/cli/test/engines-farm",
];
const concurrency = Number(process.env.FUZZFARM_TEST_CONCURRENCY ?? 2);
const all = searchRoots.flatMap((r) => walk(r, [])).sort();
const isHeavy = (f) => CPU_HEAVY.some((h) => f.includes(h));
const heavy = all.filter(isHeavy);
const light = all.filter((f) => !isHeavy(f));
const files = [];
const every = Math.max(1, Math.floor(light.length / Math.max(1, heavy.length)));
while (heavy.length || light.length) {
  if (heavy.length) files.push(heavy.shift());
  files.push(...light.splice(0, every));
}
if (files.length === 0) {
  console.error("no test files found under " + searchRoots.map((r) => relative(root, r)).join(", "));
  process.exit(1);
}
const args = [
  "--import", "tsx",
  "--test",
  "--test-reporter=tap",
  `--test-concurrency=${concurrency}`,
  "--test-timeout=600000",
  ...extra,
  ...files.map((f) => relative(root, f)),
];
// The tests' Redis: FUZZFARM_REDIS_URL if set, else the default local one,
// with the password of a Redis that setup or `fuzzfarm up` started itself
// (<dataDir>/redis/password; a fresh machine has no Redis running before).
function testRedisUrl() {
  if (process.env.FUZZFARM_REDIS_URL) return process.env.FUZZFARM_REDIS_URL;
  const file = join(resolve(root, process.env.FUZZFARM_DATA_DIR ?? ".fuzzfarm"), "redis", "password");
  const password = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  return password ? `redis://:${encodeURIComponent(password)}@127.0.0.1:6379` : "redis://127.0.0.1:6379";
}
// The TAP stream passes through line by line; node's closing summary is held back so that the ten
// slowest files (measured by scripts/file-times-reporter.mjs, a second reporter) are printed just before
// it as TAP comments, and the summary stays last.
const timesFile = join(mkdtempSync(join(tmpdir(), "fuzzfarm-test-")), "file-times.json");
const reporters = ["--test-reporter-destination=stdout", "--test-reporter=./scripts/file-times-reporter.mjs", `--test-reporter-destination=${timesFile}`];
const child = spawn(process.execPath, [...args.slice(0, 4), ...reporters, ...args.slice(4)], { cwd: root, stdio: ["inherit", "pipe", "inherit"], env: { ...process.env, FUZZFARM_TEST: "1", FUZZFARM_REDIS_URL: testRedisUrl() } });
const summary = [];
createInterface({ input: child.stdout }).on("line", (line) => {
  if (summary.length || /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /.test(line)) summary.push(line);
  else process.stdout.write(line + "\n");
});
child.on("close", (code, signal) => {
  let times = {};
  try { times = JSON.parse(readFileSync(timesFile, "utf8")); } catch { /* the run died before its end: no times */ }
  rmSync(dirname(timesFile), { recursive: true, force: true });
  const slowest = Object.entries(times).sort((a, b) => b[1] - a[1]).slice(0, 10);
  if (slowest.length) process.stdout.write("# slowest test files (wall time of each file's process):\n");
  for (const [file, ms] of slowest) process.stdout.write(`#   ${(ms / 1000).toFixed(1).padStart(7)} s  ${relative(root, file)}\n`);
  for (const line of summary) process.stdout.write(line + "\n");
  process.exit(code ?? (signal ? 1 : 0));
});
