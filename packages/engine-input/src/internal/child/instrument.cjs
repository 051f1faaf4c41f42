// @ts-check
// Require hook of the executor process: compiles the target's own files
// (JS, TS, ESM syntax) to CommonJS with babel, and instruments those under
// the coverage root with babel-plugin-istanbul, so coverage counters live in
// plain objects (global __coverage__) that the harness reads in-process after
// every execution. node_modules stay untouched (their .js files go through
// Node's own loader). Compiled output is cached on disk by content hash, so
// an executor restarted after a crash loads in milliseconds without babel.
// While compiling, every string and number literal of the source is kept as
// a dictionary token (comparison operands are usually literals).
"use strict";
const Module = require("node:module");
const fs = require("node:fs");
const path = require("node:path");
const crypto = require("node:crypto");

const CACHE_VERSION = "ff-instrument-1";
const EXTENSIONS = [".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".tsx", ".jsx"];
const MAX_TOKENS_PER_FILE = 512;
const MAX_TOKEN_BYTES = 64;
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;

/**
 * @typedef {{ root: string, cacheDir: string, instrument: boolean }} HookOptions
 * @typedef {{ loaded: number, tokens: Buffer[] }} HookState
 * The parts of @babel/core, a babel plugin and node's Module this file uses (no @types packages here):
 * @typedef {{ transformSync(source: string, options: Record<string, unknown>): { code: string } }} BabelCore
 * @typedef {string | [string, Record<string, unknown>] | { pre(file: { path: { traverse(visitors: Record<string, (p: { node: { value: unknown } }) => void>): void } }): void }} BabelPlugin
 * @typedef {{ _compile(code: string, filename: string): void }} CompiledModule
 * @typedef {{ _extensions: Record<string, (module: CompiledModule, filename: string) => void>,
 *   _resolveFilename: (this: unknown, request: string, ...rest: unknown[]) => string }} ModuleInternals
 */

/** @type {BabelCore | null} */
let babel = null;

/**
 * Literal values of a program as byte strings.
 * @param {Buffer[]} out
 * @returns {BabelPlugin}
 */
function dictionaryPlugin(out) {
  /** @param {string | number} v */
  const add = (v) => {
    if (out.length >= MAX_TOKENS_PER_FILE) return;
    if (typeof v === "string") {
      if (v.length > 0 && v.length <= MAX_TOKEN_BYTES) out.push(Buffer.from(v, "utf8"));
      return;
    }
    if (!Number.isFinite(v)) return;
    if (Number.isInteger(v) && v >= -128 && v <= 255) out.push(Buffer.from([v & 0xff]));
    else if (Number.isInteger(v) && v >= -32768 && v <= 0xffff) {
      const b = Buffer.alloc(2);
      b.writeUInt16LE(v & 0xffff);
      out.push(b, Buffer.from([b[1] ?? 0, b[0] ?? 0]));
    } else if (Number.isInteger(v) && v >= -2147483648 && v <= 0xffffffff) {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(v >>> 0);
      out.push(b, Buffer.from(b).reverse());
    }
    if (Math.abs(v) >= 10) out.push(Buffer.from(String(v), "latin1"));
  };
  return {
    pre(file) {
      file.path.traverse({
        StringLiteral(p) { add(/** @type {string} */ (p.node.value)); },
        NumericLiteral(p) { add(/** @type {number} */ (p.node.value)); },
        TemplateElement(p) { add(/** @type {{ cooked?: string | null }} */ (p.node.value).cooked ?? ""); },
      });
    },
  };
}

/**
 * @param {string} filename
 * @param {string} source
 * @param {HookOptions} opts
 * @param {boolean} instrument
 * @returns {{ code: string, tokens: Buffer[] }}
 */
function transform(filename, source, opts, instrument) {
  // Loaded on first use only: an executor whose files are all cached skips babel.
  const load = require;
  babel ??= /** @type {BabelCore} */ (load("@babel/core"));
  /** @type {Buffer[]} */
  const tokens = [];
  /** @type {BabelPlugin[]} */
  const plugins = [];
  if (instrument) {
    plugins.push(dictionaryPlugin(tokens));
    plugins.push([
      require.resolve("babel-plugin-istanbul"),
      { cwd: opts.root, exclude: [], excludeNodeModules: true, extension: EXTENSIONS, useInlineSourceMaps: false },
    ]);
  }
  plugins.push(require.resolve("@babel/plugin-transform-modules-commonjs"));
  const out = babel.transformSync(source, {
    filename,
    babelrc: false,
    configFile: false,
    sourceType: filename.endsWith(".mjs") || filename.endsWith(".mts") ? "module" : "unambiguous",
    retainLines: true,
    compact: false,
    comments: false, // comments inside istanbul's header would push every line down
    presets: [[require.resolve("@babel/preset-typescript"), { allowDeclareFields: true }]],
    plugins,
  });
  return { code: out.code, tokens };
}

/**
 * @param {string} filename
 * @param {HookOptions} opts
 * @param {boolean} instrument
 */
function compileCached(filename, opts, instrument) {
  const source = fs.readFileSync(filename, "utf8");
  const key = crypto
    .createHash("sha256")
    .update(`${CACHE_VERSION}\0${filename}\0${opts.root}\0${instrument}\0`)
    .update(source)
    .digest("hex");
  const file = path.join(opts.cacheDir, `${key}.json`);
  try {
    const hit = JSON.parse(fs.readFileSync(file, "utf8"));
    return { code: String(hit.code), tokens: hit.tokens.map((/** @type {string} */ t) => Buffer.from(t, "base64")) };
  } catch {
    const out = transform(filename, source, opts, instrument);
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(opts.cacheDir, { recursive: true });
      fs.writeFileSync(tmp, JSON.stringify({ code: out.code, tokens: out.tokens.map((t) => t.toString("base64")) }));
      fs.renameSync(tmp, file);
    } catch {
      // A cache write that fails only costs the next executor a recompile.
    }
    return out;
  }
}

/**
 * Install the hook. Returns live state: `loaded` counts instrumented files
 * (the harness rescans coverage when it changes), `tokens` collects literals.
 * @param {HookOptions} opts
 * @returns {HookState}
 */
function installHook(opts) {
  /** @type {HookState} */
  const state = { loaded: 0, tokens: [] };
  const M = /** @type {ModuleInternals} */ (/** @type {unknown} */ (Module));
  const jsLoader = M._extensions[".js"];
  const rootPrefix = opts.root.endsWith(path.sep) ? opts.root : opts.root + path.sep;
  for (const ext of EXTENSIONS) {
    const original = M._extensions[ext] ?? jsLoader;
    /** @param {CompiledModule} module @param {string} filename */
    M._extensions[ext] = function fuzzfarmLoad(module, filename) {
      const vendored = filename.includes(NODE_MODULES);
      if (vendored && (ext === ".js" || ext === ".cjs")) return original(module, filename);
      const instrument = opts.instrument && !vendored && filename.startsWith(rootPrefix);
      const { code, tokens } = compileCached(filename, opts, instrument);
      if (instrument) {
        state.loaded++;
        for (const t of tokens) state.tokens.push(t);
      }
      module._compile(code, filename);
    };
  }
  // TypeScript sources often import "./x.js" meaning "./x.ts".
  const resolve = M._resolveFilename;
  /** @this {unknown} @param {string} request @param {...unknown} rest */
  M._resolveFilename = function (request, ...rest) {
    try {
      return resolve.call(this, request, ...rest);
    } catch (e) {
      const m = /^(\.{1,2}\/.*)\.(c|m)?js$/.exec(request);
      if (!m) throw e;
      for (const ts of [".ts", ".tsx", ".mts", ".cts"]) {
        try {
          return resolve.call(this, m[1] + ts, ...rest);
        } catch {
          // try the next extension
        }
      }
      throw e;
    }
  };
  return state;
}

module.exports = { installHook };
