#!/usr/bin/env node
// Builds the `fuzzfarm` command into plain JavaScript (apps/cli/dist), so the
// installed package runs without a TypeScript loader and starts fast.
//
// Bundler: esbuild (measured against per-file tsc output: one bundle with
// code splitting loads a command's code in a few files, where per-file output
// makes Node resolve and read hundreds; see README "Development").
//   - entries: dist/fuzzfarm.cjs (the command: a CommonJS front that runs
//     `fuzzfarm node script.js` in its own process when it can, see
//     apps/cli/src/entry.ts), dist/fuzzfarm.js (every other command, an ES
//     module the front imports) and dist/worker.js (local workers); dynamic
//     imports become chunks next to them, so each command loads only the code
//     it reaches;
//   - @fuzzfarm/* workspace packages are bundled; every other package stays
//     an import resolved at run time from the installed node_modules;
//   - files that run inside a target's process or next to it (preloads,
//     runner .mjs, harness .cjs, probe targets even in TypeScript, web assets), the Prisma schema and
//     migrations and the demo example are copied as real files under
//     dist/r/ at their repository paths, and every `import.meta.url` in a
//     bundled TypeScript file is replaced by the URL its file has in that
//     mirror, so `new URL("./preload/", import.meta.url)` and
//     `createRequire(import.meta.url)` keep pointing at the same things;
//   - `__FUZZFARM_BUNDLE__` is defined, so code can tell it runs built.
//
//   node scripts/build.mjs            build (prints one line: where and how long)
//   node scripts/build.mjs --metafile also writes dist/meta.json (what each chunk holds)
//   node scripts/build.mjs --out DIR  builds into DIR (inside the repository) instead of apps/cli/dist
import { build } from "esbuild";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export const DIST = join(root, "apps", "cli", "dist");

/** Non-TypeScript files under these folders run as they are (preloads, runners, probes, harnesses). */
const ASSET_SOURCE_DIRS = ["packages", "apps"].flatMap((top) =>
  readdirSync(join(root, top))
    .map((name) => join(top, name, "src"))
    .filter((d) => existsSync(join(root, d))),
);
/** Whole files or folders copied as they are. */
const COPIED = ["packages/web/public", "prisma/schema.prisma", "prisma/migrations", "examples/input/magic-bytes.ts"];

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "test" || name === "generated") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

function copyAssets(outDir) {
  const mirror = join(outDir, "r");
  let n = 0;
  for (const d of ASSET_SOURCE_DIRS) {
    for (const file of walk(join(root, d))) {
      // Probe programs are targets the engines run at start-up (some TypeScript): copied, never bundled.
      if (/\.(ts|tsx|md)$/.test(file) && !file.includes(`${sep}probes${sep}`)) continue;
      const to = join(mirror, relative(root, file));
      mkdirSync(dirname(to), { recursive: true });
      cpSync(file, to);
      n++;
    }
  }
  for (const p of COPIED) {
    cpSync(join(root, p), join(mirror, p), { recursive: true });
    n++;
  }
  return n;
}

/** Files that run inside the target's process: their npm dependencies ship pre-bundled (bundlePreloadDeps). */
const PRELOAD_SRC = "packages/engine-node/src/internal/preload";

/**
 * The preload's npm dependencies (bare `require`s in its .cjs files), each
 * bundled into one file at dist/r/node_modules/<name>, where Node resolves
 * them from the mirrored preload before the installed node_modules: the
 * target's process reads one file instead of a package's dozens (pure-rand:
 * ~5 ms of every `fuzzfarm node` start-up, ~1 ms bundled). The version is the
 * one the checkout's preload resolves, so built and dev runs draw the same numbers.
 */
/** The directory of package `name`: the nearest package.json above its entry that names it (no "./package.json" export needed). */
function packageDirOf(entry, name) {
  for (let d = dirname(entry); d !== dirname(d); d = dirname(d)) {
    const f = join(d, "package.json");
    if (existsSync(f) && JSON.parse(readFileSync(f, "utf8")).name === name) return d;
  }
  throw new Error(`no package.json of ${name} above ${entry}`);
}

async function bundlePreloadDeps(outDir) {
  const dir = join(root, PRELOAD_SRC);
  const names = new Set();
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".cjs")))
    for (const m of readFileSync(join(dir, f), "utf8").matchAll(/require\(['"]([^'".][^'"]*)['"]\)/g))
      if (!m[1].startsWith("node:")) names.add(m[1]);
  const req = createRequire(join(dir, "index.cjs"));
  for (const name of names) {
    const pkgDir = packageDirOf(req.resolve(name), name);
    const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    const to = join(outDir, "r", "node_modules", name);
    await build({ entryPoints: [req.resolve(name)], outfile: join(to, "index.js"), bundle: true, format: "cjs", platform: "node", target: "node20", legalComments: "none", logLevel: "warning" });
    writeFileSync(join(to, "package.json"), JSON.stringify({ name, version: pkg.version, license: pkg.license, main: "index.js" }, null, 2) + "\n");
    for (const f of readdirSync(pkgDir)) if (/^licen[cs]e/i.test(f)) cpSync(join(pkgDir, f), join(to, f));
  }
  return names.size;
}

/**
 * Bare imports other than the workspace's own stay imports of the installed packages,
 * except a `require` in a workspace CommonJS file (@fuzzfarm/rng's pure-rand): the ESM
 * bundle cannot `require` an external ("Dynamic require ... is not supported"), so that
 * dependency is bundled.
 */
const externals = {
  name: "fuzzfarm-externals",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) => {
      if (a.path.startsWith("@fuzzfarm/")) return undefined;
      if (a.kind === "require-call" && a.importer.startsWith(root) && !a.importer.includes(`${sep}node_modules${sep}`)) return undefined;
      return { path: a.path, external: true };
    });
  },
};

/**
 * The workspace's modules have no import side effects (no module is imported
 * for its effects alone): tell esbuild, so a re-export that a command does not
 * use (the farm engine next to `runNodeCli`) is left out of that command's chunk.
 */
const noSideEffects = {
  name: "fuzzfarm-no-side-effects",
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (a) => {
      if (a.pluginData?.inner || a.kind === "entry-point") return undefined;
      const fromWorkspace = a.importer.startsWith(root) && !a.importer.includes(`${sep}node_modules${sep}`);
      if (!(a.path.startsWith("@fuzzfarm/") || (a.path.startsWith(".") && fromWorkspace))) return undefined;
      const r = await b.resolve(a.path, { kind: a.kind, resolveDir: a.resolveDir, importer: a.importer, pluginData: { inner: true } });
      if (r.errors.length) return { errors: r.errors };
      return { ...r, sideEffects: false };
    });
  },
};

/**
 * node:crypto in the CommonJS front is required where first used, not when
 * the bundle loads (esbuild's CommonJS output requires every import at load):
 * it costs ~3 ms of an ~80 ms start-up and serves only a failing run's
 * fingerprint. Its functions are wrapped; importing a class or a value from
 * it there fails the build ("No matching export").
 */
const lazyCrypto = {
  name: "fuzzfarm-lazy-crypto",
  setup(b) {
    b.onResolve({ filter: /^(node:)?crypto$/ }, (a) =>
      a.namespace === "lazy-builtin" ? { path: "node:crypto", external: true } : { path: "node:crypto", namespace: "lazy-builtin" });
    b.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, async () => {
      const crypto = await import("node:crypto");
      const fns = Object.keys(crypto).filter((k) => k !== "default" && typeof crypto[k] === "function" && /^[a-z]/.test(k));
      const lines = fns.map((k) => `export function ${k}(...a) { return get().${k}(...a); }`);
      return { contents: `let m;\nconst get = () => (m ??= require("node:crypto"));\n${lines.join("\n")}\n`, loader: "js" };
    });
  },
};

/** `import.meta.url` of a bundled source file -> the URL of that file in the dist/r mirror. */
const mirrorUrls = {
  name: "fuzzfarm-mirror-urls",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (a) => {
      if (a.path.includes(`${sep}node_modules${sep}`) || !a.path.startsWith(root)) return undefined;
      let text = readFileSync(a.path, "utf8");
      if (text.includes("import.meta.url")) {
        const rel = relative(root, a.path).split(sep).join("/");
        text = text.replaceAll("import.meta.url", `new URL(${JSON.stringify(`./r/${rel}`)}, import.meta.url).href`);
      }
      return { contents: text, loader: "ts", resolveDir: dirname(a.path) };
    });
  },
};

/** bin.ts's `./node-command` is the separately built dist/node.js (see buildCli). */
const nodeCommandApart = {
  name: "fuzzfarm-node-command-apart",
  setup(b) {
    b.onResolve({ filter: /^\.\/node-command$/ }, (a) => (a.importer.endsWith(`${sep}bin.ts`) ? { path: "./node.js", external: true } : undefined));
  },
};

/** entry.ts's `./bin` is the ES module entry dist/fuzzfarm.js, imported as it is. */
const binApart = {
  name: "fuzzfarm-bin-apart",
  setup(b) {
    b.onResolve({ filter: /^\.\/bin$/ }, (a) => (a.importer.endsWith(`${sep}entry.ts`) ? { path: "./fuzzfarm.js", external: true } : undefined));
  },
};

/**
 * Builds into outDir (default apps/cli/dist). Another folder must lie inside the
 * repository too: the bundle's npm imports resolve from its node_modules.
 */
export async function buildCli({ metafile = false, outDir = DIST } = {}) {
  const t0 = performance.now();
  const generated = join(root, "packages", "db", "src", "generated", "client.ts");
  if (!existsSync(generated)) throw new Error("the Prisma client is not generated: run `npm run setup` first");
  rmSync(outDir, { recursive: true, force: true });
  const common = {
    absWorkingDir: root,
    outdir: outDir,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none",
    logLevel: "warning",
    metafile,
    define: { __FUZZFARM_BUNDLE__: "true" },
  };
  // The CLI and the worker: commands are chunks loaded when they run.
  const r = await build({
    ...common,
    entryPoints: { fuzzfarm: "apps/cli/src/bin.ts", worker: "apps/worker/src/main.ts" },
    entryNames: "[name]",
    chunkNames: "chunk-[hash]",
    splitting: true,
    banner: { js: "#!/usr/bin/env node" },
    plugins: [externals, nodeCommandApart, noSideEffects, mirrorUrls],
  });
  // `fuzzfarm node` on its own, without splitting: chunks are per module, and a module
  // the farm engine shares with the node CLI would drag the engine (and zod) along.
  const n = await build({ ...common, entryPoints: { node: "apps/cli/src/node-command.ts" }, plugins: [externals, noSideEffects, mirrorUrls] });
  // The CommonJS front (apps/cli/src/entry.ts): `import.meta.url` of its sources is this file's URL.
  const e = await build({
    ...common,
    format: "cjs",
    entryPoints: { fuzzfarm: "apps/cli/src/entry.ts" },
    outExtension: { ".js": ".cjs" },
    banner: { js: '#!/usr/bin/env node\nvar __ffImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: { ...common.define, "import.meta.url": "__ffImportMetaUrl" },
    plugins: [lazyCrypto, externals, binApart, noSideEffects, mirrorUrls],
  });
  if (metafile) writeFileSync(join(outDir, "meta.json"), JSON.stringify({ cli: r.metafile, node: n.metafile, entry: e.metafile }));
  const assets = copyAssets(outDir) + (await bundlePreloadDeps(outDir));
  return { dist: outDir, assets, ms: Math.round(performance.now() - t0) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const out = process.argv.indexOf("--out");
    const r = await buildCli({ metafile: process.argv.includes("--metafile"), outDir: out > 0 ? resolve(process.argv[out + 1]) : DIST });
    process.stderr.write(`build: ${relative(root, r.dist)} (${r.assets} asset paths copied) in ${r.ms} ms\n`);
  } catch (e) {
    process.stderr.write(`build: ${e instanceof Error ? e.message.split("\n")[0] : e}\n`);
    process.exit(2);
  }
}
