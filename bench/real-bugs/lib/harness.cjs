// @ts-check
// Shared by the real-bug drivers (plain CommonJS, .cjs because the repo root is ESM: the drivers run under plain
// `node` and under `fuzzfarm node`, with no TypeScript loader).
//
//   node bench/real-bugs/<id>/driver.js [buggy|fixed]
//
// The release is picked by the first argument (default buggy) and loaded
// from the bench's install cache, bench/out/real-bugs/<id>/node_modules,
// where `run.ts` (or `install.ts`) installed the npm aliases
// `<pkg>-buggy` / `<pkg>-fixed` listed in the bug's package.json.
// Exit codes: 0 the run passed; 1 the bug manifested (a line starting with
// "BUG:" on stderr says how); 2 the driver could not run (not installed,
// bad argument); 3 the driver broke (an unexpected error, or the event loop
// emptied before it finished). REAL_BUGS_FORCE=1 makes a driver inject the schedule its
// BUG.md names, through the core API only (never by patching the package):
// the proof that the schedule is reachable and that the fixed release
// survives it.
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { createRequire } = require('node:module');

const release = process.argv[2] || 'buggy';
const forced = process.env.REAL_BUGS_FORCE === '1';

/** Install cache of one bug. @param {string} id */
function cacheDir(id) {
  return path.join(__dirname, '..', '..', 'out', 'real-bugs', id);
}

/**
 * The package under test, in the release named on the command line.
 * @param {string} id  the bug's folder name
 * @param {string} pkg the npm package name (aliases are `<pkg>-buggy` / `<pkg>-fixed`)
 * @param {string} [sub] a file inside the package, e.g. 'js/release/bluebird'
 */
function load(id, pkg, sub) {
  if (release !== 'buggy' && release !== 'fixed') {
    process.stderr.write(`driver: release must be buggy or fixed, got ${release}\n`);
    process.exit(2);
  }
  const dir = cacheDir(id);
  const req = createRequire(path.join(dir, 'package.json'));
  const name = `${pkg}-${release}` + (sub ? `/${sub}` : '');
  try {
    return req(name);
  } catch (e) {
    const err = /** @type {NodeJS.ErrnoException} */ (e);
    if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes(name)) {
      process.stderr.write(`driver: ${name} is not installed in ${dir}; run: node --import tsx bench/real-bugs/install.ts ${id}\n`);
      process.exit(2);
    }
    throw e;
  }
}

let settled = false;
/** The bug manifested: say how, exit 1. @param {string} msg */
function bug(msg) {
  if (settled) return;
  settled = true;
  process.stderr.write(`BUG: ${msg}\n`);
  process.exit(1);
}

/** The run passed: exit 0 now (pending keep-alive handles are not ours to wait for). */
function pass() {
  if (settled) return;
  settled = true;
  process.exit(0);
}

/** A fresh private directory, removed at exit. */
function tmpDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-realbug-'));
  process.on('exit', () => { try { fs.rmSync(d, { recursive: true, force: true }); } catch { /* best effort */ } });
  return d;
}

/**
 * Run `fn`, turning a thrown error or a rejection into "the driver broke"
 * (exit 3) unless `isBug(err)` says it is the bug.
 * @param {() => Promise<void>} fn
 * @param {(e: any) => string | null} [isBug] the bug's description, or null
 */
function main(fn, isBug) {
  const onErr = (/** @type {any} */ e) => {
    const what = isBug ? isBug(e) : null;
    if (what) bug(what);
    else { process.stderr.write(`driver error: ${e && e.stack || e}\n`); process.exit(3); }
  };
  process.on('uncaughtException', onErr);
  process.on('unhandledRejection', onErr);
  // The loop emptied while the driver still waited: nothing was left to
  // settle it (a lost callback). Not a pass.
  process.on('exit', (code) => {
    if (!settled && code === 0) {
      process.stderr.write('driver error: the event loop emptied before the driver finished\n');
      process.exitCode = 3;
    }
  });
  Promise.resolve().then(fn).then(pass, onErr);
}

/**
 * The exposing schedule of the child-output bugs (REAL_BUGS_FORCE=1): every
 * child spawned from now on has its stdout chunks delivered `ms` late.
 * @param {number} ms
 */
function delayChildStdout(ms) {
  const cp = require('node:child_process');
  const spawn = cp.spawn;
  // @ts-ignore
  cp.spawn = (...args) => {
    const child = spawn(...args);
    const push = child.stdout.push;
    child.stdout.push = function (chunk, ...a) { setTimeout(() => push.call(this, chunk, ...a), ms); return true; };
    return child;
  };
}

module.exports = { release, forced, load, bug, pass, tmpDir, main, cacheDir, delayChildStdout };
