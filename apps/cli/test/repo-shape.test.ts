// The architecture rules of docs/architecture.md, checked on every run:
// the code typechecks, packages have one entry point and no deep imports,
// packages never import apps, and there are no import cycles.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO } from "./helpers";

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "generated" || name === "fixtures" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(ts|mts|cts|mjs|cjs|js)$/.test(name)) out.push(p);
  }
  return out;
}

const packageDirs = readdirSync(join(REPO, "packages")).map((n) => join(REPO, "packages", n));

test("the whole repository typechecks (tsc --noEmit)", () => {
  const r = spawnSync(join(REPO, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], { cwd: REPO, encoding: "utf8" });
  assert.equal(r.status, 0, r.stdout.split("\n").slice(0, 30).join("\n"));
});

test("every package has exactly one public entry point, src/index.ts (plus an optional ./testing)", () => {
  for (const dir of packageDirs) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const keys = Object.keys(pkg.exports ?? {});
    assert.equal(pkg.exports?.["."], "./src/index.ts", `${relative(REPO, dir)}: exports["."]`);
    assert.deepEqual(keys.filter((k) => k !== "." && k !== "./testing"), [], `${relative(REPO, dir)}: extra exports`);
  }
});

test("no deep imports across packages, and packages never import apps", () => {
  const bad: string[] = [];
  for (const file of [...packageDirs, join(REPO, "apps")].flatMap((d) => sources(d))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from\s+|import\(\s*|require\(\s*)["'](@fuzzfarm\/[^"']+)["']/g)) {
      const spec = m[1]!;
      const deep = /^@fuzzfarm\/[^/]+\/(?!testing$)/.test(spec);
      const appImport = file.startsWith(join(REPO, "packages")) && /^@fuzzfarm\/(cli|app-)/.test(spec);
      if (deep || appImport) bad.push(`${relative(REPO, file)}: ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});

test("no import cycles (madge)", () => {
  const r = spawnSync(join(REPO, "node_modules", ".bin", "madge"), ["--circular", "--extensions", "ts", "--exclude", "generated/", "packages", "apps"], { cwd: REPO, encoding: "utf8" });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`.split("\n").slice(-20).join("\n"));
  assert.match(r.stdout + r.stderr, /No circular dependency found/);
});
