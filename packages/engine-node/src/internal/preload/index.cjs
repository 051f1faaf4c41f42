// @ts-check
// FuzzFarm's Node event fuzzer, loaded into the program with
// `node -r <this file> script.js`. The launcher hands the configuration over
// through the file named by FUZZFARM_NODE (its own child-process protocol);
// the variable is removed at once so the program sees the environment it was
// given. Child node processes get their own config (children.cjs).
//
// Config: {strategy, params, seed, traceOut, replay?: {events, holdSet?},
//          timeoutMs, stallMs?, root, coverage?, child?, record?}
// Hangs: timeoutMs > 0 is a wall-clock limit (the campaign engine's budget);
// stallMs > 0 reports a hang when no callback was delivered for stallMs
// although the loop is kept alive, and the program waits neither on a timer of
// its own nor on a child process (which runs its own watchdog).
// A warm worker (warm-boot.cjs) calls start(cfg) itself.
// At exit the trace (every delivered event, the uncaught error if any, the
// hang report) is written to traceOut as JSON.
'use strict';
/**
 * The config this file starts from and the trace it writes, typed in the engine (preload-messages.ts, trace.ts):
 * @typedef {import('../preload-messages').PreloadStart} PreloadStart
 * @typedef {import('../trace').Trace} Trace
 * @typedef {{ timeoutMs: number, stallMs?: number }} HangReport
 */
const fs = require('node:fs');

/** The trace of a run nobody records: deliveries are counted (S.seq), not kept. */
class DroppingTrace extends Array {
  /** @param {unknown[]} _items */
  push(..._items) { return 0; }
}

// a worker thread the program started (threads.cjs): only the slow-thread stalls, never a second scheduler
require('./threads.cjs').startThreadIfAsked();

const cfgPath = process.env.FUZZFARM_NODE;
if (cfgPath) {
  delete process.env.FUZZFARM_NODE;
  require('./children.cjs').cleanChildEnv();
  start(JSON.parse(fs.readFileSync(cfgPath, 'utf8')), cfgPath);
}
module.exports = { start };


/** @param {PreloadStart} cfg @param {string} [cfgPath] the config file (children's configs go next to it) */
function start(cfg, cfgPath) {
  const { S, makeSlot, pendingRecords } = require('./scheduler.cjs');
  const { makeStrategy, makeRng } = require('./strategies.cjs');
  const { SELF_DIR } = require('./sites.cjs');
  /** @type {string[]} */
  let installed = [];
  try {
    installed = require('./hooks.cjs').installAll();
  } catch (e) {
    process.stderr.write(`fuzzfarm: the interceptor could not install its hooks on Node ${process.version}: ${e && /** @type {{ message?: unknown }} */ (e).message}\n`);
    process.exit(70);
  }
  // a replay names sites as its recording did, whatever its own cwd
  S.root = (cfg.replay && cfg.replay.root) || cfg.root || process.cwd();
  // pass-through: nothing perturbed, replayed or asked to be recorded (mode.cjs)
  if (cfg.record === false && (cfg.strategy || 'none') === 'none' && !cfg.replay && !cfg.coverage) {
    require('./mode.cjs').MODE.record = false;
    S.trace = new DroppingTrace();
  }
  S.strategy = makeStrategy(cfg.strategy || 'none', cfg.params || {}, makeRng(cfg.seed || 0));
  // worker threads stall as the strategy says, or in a replay as the recording did (same seed: the same posts)
  const threads = cfg.replay ? cfg.replay.threads : S.strategy.threads;
  if (threads) require('./threads.cjs').installThreads({ seed: cfg.seed || 0, ...threads }, S.strategy);
  const coverage = cfg.coverage ? require('./coverage.cjs').startCoverage() : null;
  /** @type {ReturnType<typeof import('./replay.cjs').installReplay> | null} */
  let replay = null;
  if (cfg.replay) replay = require('./replay.cjs').installReplay(cfg.replay);
  const spawned = cfgPath ? require('./children.cjs').installChildren(cfg, cfgPath) : { children: [] };

  const strip = (/** @type {string} */ s) => String(s).split('\n').filter((l) => !l.includes(SELF_DIR)).join('\n');
  /** @type {Trace["uncaught"]} */
  let uncaught = null;
  /** @type {Trace["hang"]} */
  let hang = null;
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    // anything may be thrown: an Error, or a string, a number, null...
    const e = /** @type {{ stack?: string } | null | undefined} */ (err);
    const stack = e && e.stack ? strip(e.stack) : String(e);
    uncaught = { origin, message: String(e && e.stack ? stack.split('\n')[0] : e), stack };
    if (!require('node:worker_threads').isMainThread) write(1);
  });

  let written = false;
  function write(/** @type {number} */ code) {
    if (written || !cfg.traceOut) return;
    written = true;
    /** @type {Trace} */
    const doc = {
      version: 1, node: process.version, strategy: { name: S.strategy.name, params: S.strategy.params }, seed: cfg.seed || 0,
      mode: replay ? (cfg.replay?.holdSet ? 'replay-subset' : 'replay') : 'fuzz', root: S.root, installed, exitCode: code,
      heldAtExit: S.held, replaySkipped: replay ? replay.skipped : 0, uncaught, hang, events: S.trace.concat(pendingRecords()),
      coverage: coverage ? coverage.take() : undefined, children: spawned.children, threads: threads || null,
    };
    try { fs.writeFileSync(cfg.traceOut, JSON.stringify(doc)); } catch { /* the launcher reports a missing trace */ }
  }
  process.on('exit', (code) => write(code));

  /** @param {HangReport} report @param {string} why */
  function reportHang(report, why) {
    const pending = require('./pending.cjs').describePending();
    hang = { ...report, pending };
    process.stderr.write(`fuzzfarm: hang: ${why}; pending:\n${pending.map((l) => `  - ${l}`).join('\n')}\n`);
    write(124);
    process.exit(124);
  }
  if (cfg.timeoutMs > 0) {
    makeSlot(() => reportHang({ timeoutMs: cfg.timeoutMs }, `the program did not finish within ${cfg.timeoutMs} ms`), cfg.timeoutMs, false);
  }
  if (cfg.stallMs > 0) watchStall(cfg.stallMs, reportHang);
}

/**
 * Progress watchdog (unref'd: it never keeps the program alive, so when it
 * fires something else does). A stall is stallMs without any delivered
 * callback while the program waits on no ref'd timer of its own and no child
 * process.
 * @param {number} stallMs @param {(report: HangReport, why: string) => void} reportHang
 */
function watchStall(stallMs, reportHang) {
  const { S, makeSlot } = require('./scheduler.cjs');
  const { liveTimers } = require('./hooks.cjs');
  const period = Math.max(10, Math.min(1000, Math.floor(stallMs / 4)));
  let lastSeq = -1;
  let since = performance.now();
  const waitsOnOwnWork = () => {
    for (const t of liveTimers) if (!t._destroyed && t.hasRef()) return true;
    for (const h of /** @type {NodeJS.Process & { _getActiveHandles(): ({ constructor?: { name?: string } } | null)[] }} */ (process)._getActiveHandles()) {
      if (h && h.constructor && h.constructor.name === 'ChildProcess') return true;
    }
    return false;
  };
  const check = () => {
    const t = performance.now();
    if (S.seq !== lastSeq || S.held > 0 || waitsOnOwnWork()) { lastSeq = S.seq; since = t; }
    else if (t - since >= stallMs) {
      reportHang({ timeoutMs: 0, stallMs }, `no callback was delivered for ${stallMs} ms although the program is still waiting`);
      return;
    }
    makeSlot(check, period, false);
  };
  makeSlot(check, period, false);
}
