#!/usr/bin/env node
// Runs every test file of the monorepo in one `node --test` invocation, so
// the run ends with node's standard TAP summary (# pass N / # fail N).
//   node scripts/test.mjs                      all tests
//   node scripts/test.mjs packages/engine-node only tests under these folders (or these files)
// Test files: **/test/**/*.test.ts and **/test/**/*.test.mjs under apps/ and packages/.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync, existsSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const roots = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const extra = process.argv.slice(2).filter((a) => a.startsWith("-"));
const searchRoots = (roots.length ? roots : ["packages", "apps"]).map((r) => join(root, r));

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

const files = searchRoots.flatMap((r) => walk(r, [])).sort();
if (files.length === 0) {
  console.error("no test files found under " + searchRoots.map((r) => relative(root, r)).join(", "));
  process.exit(1);
}
const args = [
  "--import", "tsx",
  "--test",
  "--test-reporter=tap",
  "--test-concurrency=1",
  "--test-timeout=600000",
  ...extra,
  ...files.map((f) => relative(root, f)),
];
const r = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit", env: { ...process.env, FUZZFARM_TEST: "1" } });
process.exit(r.status ?? 1);
