// The architecture rules of docs/architecture.md, checked on every run:
// the code typechecks, packages have one entry point and no deep imports,
// packages never import apps, no relative import crosses a package root
// (packages/*, apps/*, bench, scripts: each reaches the others through their
// public `@fuzzfarm/...` entries), and there are no import cycles.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { REPO } from "./helpers";

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    // out/ and cache/ hold what benches install and write (gitignored), not sources
    if (name === "node_modules" || name === "generated" || name === "fixtures" || name === "out" || name === "cache" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(ts|mts|cts|mjs|cjs|js)$/.test(name)) out.push(p);
  }
  return out;
}

const packageDirs = readdirSync(join(REPO, "packages")).map((n) => join(REPO, "packages", n));
const appDirs = readdirSync(join(REPO, "apps")).map((n) => join(REPO, "apps", n));
/** Every root a relative import must stay inside: each package, each app, the benches, the scripts. */
const ROOTS = [...packageDirs, ...appDirs, join(REPO, "bench"), join(REPO, "scripts")];

/** Module specifiers of a source text: static and dynamic imports, re-exports, side-effect imports, require(). */
function specifiers(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm)].map((m) => m[1]!);
}

/**
 * Relative imports that leave the root (package, app, bench, scripts) of the
 * file holding them: `file: specifier` for each. Such an import reaches past
 * the other side's public entry (bench into engine-wasm's src/internal) or
 * makes a package depend on a folder that is no package (a test on bench/).
 */
export function crossRootImports(files: { path: string; text: string }[], roots: string[] = ROOTS): string[] {
  const rootOf = (p: string) => roots.find((r) => p === r || p.startsWith(r + sep));
  const bad: string[] = [];
  for (const f of files) {
    const own = rootOf(f.path);
    for (const spec of specifiers(f.text)) {
      if (!spec.startsWith("./") && !spec.startsWith("../")) continue;
      if (rootOf(resolve(dirname(f.path), spec)) !== own) bad.push(`${relative(REPO, f.path)}: ${spec}`);
    }
  }
  return bad;
}

test("the whole repository typechecks (tsc --noEmit)", () => {
  const r = spawnSync(join(REPO, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], { cwd: REPO, encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout.split("\n").slice(0, 30).join("\n"));
});

// src/index.cjs: a package that also runs inside the target's process, where nothing is compiled (@fuzzfarm/rng).
test("every package has exactly one public entry point, src/index.ts or src/index.cjs (plus an optional ./testing)", () => {
  for (const dir of packageDirs) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const keys = Object.keys(pkg.exports ?? {});
    assert.ok(["./src/index.ts", "./src/index.cjs"].includes(pkg.exports?.["."]), `${relative(REPO, dir)}: exports["."] is ${pkg.exports?.["."]}`);
    assert.deepEqual(keys.filter((k) => k !== "." && k !== "./testing"), [], `${relative(REPO, dir)}: extra exports`);
  }
});

test("no deep imports across packages, and packages never import apps", () => {
  const bad: string[] = [];
  for (const file of ROOTS.flatMap((d) => sources(d))) {
    const text = readFileSync(file, "utf8");
    for (const spec of specifiers(text).filter((s) => s.startsWith("@fuzzfarm/"))) {
      const deep = /^@fuzzfarm\/[^/]+\/(?!testing$)/.test(spec);
      const appImport = file.startsWith(join(REPO, "packages")) && /^@fuzzfarm\/(cli|app-)/.test(spec);
      if (deep || appImport) bad.push(`${relative(REPO, file)}: ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});

test("no relative import crosses a package root (packages, apps, bench, scripts)", () => {
  const files = ROOTS.flatMap((d) => sources(d)).map((path) => ({ path, text: readFileSync(path, "utf8") }));
  assert.deepEqual(crossRootImports(files), []);
});

test("the cross-root check finds the imports it exists for, and passes those that stay inside", () => {
  const at = (p: string, text: string) => ({ path: join(REPO, p), text });
  // specifiers are spliced in, so that this file's own text holds no offending import
  const q = (spec: string) => JSON.stringify(spec);
  const found = crossRootImports([
    at("bench/wasm-gen.ts", `import { encodeWat } from ${q("../packages/engine-wasm/src/internal/wasm-tools")};`),
    at("packages/coordinator/test/x.test.ts", `import { collect } from ${q("../../../bench/triage-evidence")};`),
    at("packages/engine-node/test/y.test.ts", `const m = await import(${q("../../engine-wasm/src/index")});`),
    at("apps/cli/src/z.ts", `export { a } from ${q("../../../packages/db/src/index")};\nimport ${q("../../worker/src/main")};`),
    at("scripts/s.ts", `const b = require(${q("../bench/lib/node-races")});`),
    // inside their own root: allowed
    at("bench/wasm-real-bugs/run.ts", `import { BUGS } from ${q("./bugs")};\nimport { naiveBarrierRuns } from ${q("../lib/naive-barrier-runner")};`),
    at("packages/engine-wasm/test/t.test.ts", `import { encodeWat } from ${q("../src/internal/wasm-tools")};\nimport { x } from ${q("@fuzzfarm/protocol")};`),
  ]);
  assert.deepEqual(found, [
    "bench/wasm-gen.ts: ../packages/engine-wasm/src/internal/wasm-tools",
    "packages/coordinator/test/x.test.ts: ../../../bench/triage-evidence",
    "packages/engine-node/test/y.test.ts: ../../engine-wasm/src/index",
    "apps/cli/src/z.ts: ../../../packages/db/src/index",
    "apps/cli/src/z.ts: ../../worker/src/main",
    "scripts/s.ts: ../bench/lib/node-races",
  ]);
});

test("no import cycles (madge)", () => {
  const r = spawnSync(join(REPO, "node_modules", ".bin", "madge"), ["--circular", "--extensions", "ts", "--exclude", "generated/", "packages", "apps"], { cwd: REPO, encoding: "utf8" });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`.split("\n").slice(-20).join("\n"));
  assert.match(r.stdout + r.stderr, /No circular dependency found/);
});
