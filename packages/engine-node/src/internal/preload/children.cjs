// @ts-check
// Child Node processes inherit the fuzzer. A program run by `fuzzfarm node`
// that starts `process.execPath` (spawn, execFile, exec through a shell,
// fork, and the *Sync variants) gets a child running under the same
// strategy with its own seed, derived from the parent's seed and the
// child's ordinal (1, 2, ... in spawn order), and its own trace file next to
// the parent's (`<traceOut>.child-<n>.json`): traces are never mixed.
//
// How: the child's environment gets FUZZFARM_NODE (its config file) and,
// unless its argv already loads the preload (fork copies execArgv),
// NODE_OPTIONS `--require <preload>`. The child's preload removes both again
// so the program sees the environment it was given.
//
// Async spawns all go through the native `Process.prototype.spawn(options)`
// (options.file, options.args, options.envPairs); the synchronous ones are
// wrapped at the public API (core calls its own module-local spawnSync).
'use strict';
/**
 * A child's config is what the preload starts from (preload-messages.ts); the parent's trace lists the children:
 * @typedef {import('../preload-messages').PreloadStart} PreloadStart
 * @typedef {import('../preload-messages').ChildRecord} ChildRecord
 * What node's internal process_wrap spawn receives (lib/internal/child_process.js):
 * @typedef {{ file?: string, args?: string[], envPairs?: string[] }} NativeSpawnOptions
 * @typedef {{ prototype: { spawn(this: unknown, options: NativeSpawnOptions): unknown } }} NativeProcess
 * @typedef {{ shell?: unknown, env?: NodeJS.ProcessEnv }} SyncOptions
 */
const fs = require('node:fs');
const path = require('node:path');

const PRELOAD = path.join(__dirname, 'index.cjs');
const REQUIRE_OPT = `--require ${JSON.stringify(PRELOAD)}`;

/** A 31-bit seed for child n of a run seeded `seed` (splitmix-style mixing, deterministic). */
function childSeed(/** @type {number} */ seed, /** @type {number} */ n) {
  let x = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(n, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) & 0x7fffffff;
}

/** Whether a command line (shell string or file) starts this very node binary. */
function isNodeFile(/** @type {unknown} */ file) {
  if (typeof file !== 'string') return false;
  return file === process.execPath || file === 'node' || file === process.argv0;
}
function isNodeCommand(/** @type {unknown} */ cmd) {
  if (typeof cmd !== 'string') return false;
  const c = cmd.trimStart();
  return c.startsWith(process.execPath) || c.startsWith(`"${process.execPath}"`) || c.startsWith(`'${process.execPath}'`) || /^node(\s|$)/.test(c);
}

/** Remove the preload's own `--require` from a NODE_OPTIONS value. */
function stripRequire(/** @type {string} */ opts) {
  return opts.split(REQUIRE_OPT).join('').replace(/\s+/g, ' ').trim();
}

/**
 * @param {PreloadStart} cfg the parent's config (strategy, params, seed, traceOut, stallMs, root)
 * @param {string} cfgPath the parent's config file (children's files go next to it)
 * @returns {{children: ChildRecord[]}} the list of started children, for the parent's trace
 */
function installChildren(cfg, cfgPath) {
  /** @type {ChildRecord[]} */
  const children = [];

  /** Config file and env additions for the next child; null when it is not a node child. */
  function nextChild(/** @type {string} */ what) {
    const n = children.length + 1;
    const seed = childSeed(cfg.seed || 0, n);
    const file = `${cfgPath}.child-${n}.json`;
    const traceOut = cfg.traceOut ? `${cfg.traceOut}.child-${n}.json` : null;
    /** @type {PreloadStart} */
    const childCfg = {
      strategy: cfg.strategy, params: cfg.params, seed, traceOut, timeoutMs: 0, stallMs: cfg.stallMs || 0,
      root: cfg.root, replay: null, coverage: false, child: n, record: cfg.record,
    };
    fs.writeFileSync(file, JSON.stringify(childCfg));
    children.push({ n, seed, command: what.slice(0, 300), traceOut });
    return file;
  }

  /** @param {NodeJS.ProcessEnv} env @param {string} cfgFile @param {boolean} needRequire */
  function addEnv(env, cfgFile, needRequire) {
    env.FUZZFARM_NODE = cfgFile;
    if (!env.UV_THREADPOOL_SIZE) env.UV_THREADPOOL_SIZE = '1';
    if (needRequire) {
      const prev = env.NODE_OPTIONS ? stripRequire(env.NODE_OPTIONS) : '';
      env.NODE_OPTIONS = prev ? `${prev} ${REQUIRE_OPT}` : REQUIRE_OPT;
    }
  }

  // ---- async: the native spawn every ChildProcess goes through
  const prev = process.noDeprecation;
  process.noDeprecation = true;
  /** @type {NativeProcess} */
  let Process;
  try {
    Process = /** @type {NodeJS.Process & { binding(name: 'process_wrap'): { Process: NativeProcess } }} */ (process).binding('process_wrap').Process;
  } finally { process.noDeprecation = prev; }
  const nativeSpawn = Process.prototype.spawn;
  /** @this {unknown} @param {NativeSpawnOptions} options */
  Process.prototype.spawn = function (options) {
    const args = options && Array.isArray(options.args) ? options.args : [];
    const shellCmd = args.length >= 3 && args[1] === '-c' ? args[2] : null;
    const node = isNodeFile(options && options.file) || (shellCmd !== null && isNodeCommand(shellCmd));
    if (node && Array.isArray(options.envPairs)) {
      /** @type {Record<string, string>} */
      const env = {};
      for (const kv of options.envPairs) {
        const i = kv.indexOf('=');
        if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
      }
      const cfgFile = nextChild(shellCmd ?? [options.file, ...args.slice(1)].join(' '));
      addEnv(env, cfgFile, !args.includes(PRELOAD));
      options.envPairs = Object.keys(env).map((k) => `${k}=${env[k]}`);
    }
    return nativeSpawn.call(this, options);
  };

  // ---- sync: spawnSync(file, args?, options?), execFileSync(file, args?, options?), execSync(cmd, options?)
  const cp = require('node:child_process');
  /** @param {'spawnSync' | 'execFileSync' | 'execSync'} name */
  const wrapSync = (name) => {
    const orig = cp[name];
    /** @this {unknown} */
    const wrapped = function (/** @type {unknown[]} */ ...a) {
      const first = a[0];
      let optIdx = -1;
      for (let i = 1; i < a.length; i++) if (a[i] && typeof a[i] === 'object' && !Array.isArray(a[i])) { optIdx = i; break; }
      const opts = /** @type {SyncOptions | null} */ (optIdx >= 0 ? a[optIdx] : null);
      const shell = name === 'execSync' || (opts && opts.shell);
      const argList = name !== 'execSync' && Array.isArray(a[1]) ? a[1] : [];
      const node = shell ? isNodeCommand(name === 'execSync' ? first : [first, ...argList].join(' ')) : isNodeFile(first);
      if (node) {
        const env = { ...(opts && opts.env ? opts.env : process.env) };
        addEnv(env, nextChild(name === 'execSync' ? String(first) : [first, ...argList].join(' ')), !argList.includes(PRELOAD));
        const newOpts = { ...(opts || {}), env };
        if (optIdx >= 0) a[optIdx] = newOpts;
        else if (name === 'execSync') a[1] = newOpts;
        else { if (!Array.isArray(a[1])) a.splice(1, 0, []); a[2] = newOpts; }
      }
      return Reflect.apply(orig, this, a);
    };
    // written through a looser view: the wrapper takes the arguments of all three
    /** @type {Record<typeof name, unknown>} */ (cp)[name] = wrapped;
  };
  wrapSync('spawnSync');
  wrapSync('execFileSync');
  wrapSync('execSync');
  return { children };
}

/** In a child started by installChildren: hide the variables the parent added. */
function cleanChildEnv() {
  const o = process.env.NODE_OPTIONS;
  if (o && o.includes(REQUIRE_OPT)) {
    const rest = stripRequire(o);
    if (rest) process.env.NODE_OPTIONS = rest; else delete process.env.NODE_OPTIONS;
  }
}

module.exports = { installChildren, cleanChildEnv, childSeed, PRELOAD };
