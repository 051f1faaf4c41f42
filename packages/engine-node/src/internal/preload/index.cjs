// @ts-check
// FuzzFarm's Node event fuzzer, loaded into the program with
// `node -r <this file> script.js`. The launcher hands the configuration over
// through the file named by FUZZFARM_NODE (its own child-process protocol);
// the variable is removed at once so the program's children run plain.
//
// Config: {strategy, params, seed, traceOut, replay?: {events, holdSet?},
//          timeoutMs, root, coverage?}
// A warm worker (warm-boot.cjs) calls start(cfg) itself.
// At exit the trace (every delivered event, the uncaught error if any, the
// hang report) is written to traceOut as JSON.
'use strict';
const fs = require('node:fs');

const cfgPath = process.env.FUZZFARM_NODE;
if (cfgPath) {
  delete process.env.FUZZFARM_NODE;
  start(JSON.parse(fs.readFileSync(cfgPath, 'utf8')));
}
module.exports = { start };

/** @param {any} cfg */
function start(cfg) {
  const { S, makeSlot, pendingRecords } = require('./scheduler.cjs');
  const { makeStrategy, makeRng } = require('./strategies.cjs');
  const { SELF_DIR } = require('./sites.cjs');
  /** @type {string[]} */
  let installed = [];
  try {
    installed = require('./hooks.cjs').installAll();
  } catch (e) {
    process.stderr.write(`fuzzfarm: the interceptor could not install its hooks on Node ${process.version}: ${e && /** @type {any} */ (e).message}\n`);
    process.exit(70);
  }
  S.root = cfg.root || process.cwd();
  S.strategy = makeStrategy(cfg.strategy || 'none', cfg.params || {}, makeRng(cfg.seed || 0));
  const coverage = cfg.coverage ? require('./coverage.cjs').startCoverage() : null;
  /** @type {any} */
  let replay = null;
  if (cfg.replay) replay = require('./replay.cjs').installReplay(cfg.replay);

  const strip = (/** @type {string} */ s) => String(s).split('\n').filter((l) => !l.includes(SELF_DIR)).join('\n');
  /** @type {any} */
  let uncaught = null;
  /** @type {any} */
  let hang = null;
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    const e = /** @type {any} */ (err);
    const stack = e && e.stack ? strip(e.stack) : String(e);
    uncaught = { origin, message: String(e && e.stack ? stack.split('\n')[0] : e), stack };
    if (!require('node:worker_threads').isMainThread) write(1);
  });

  let written = false;
  function write(/** @type {number} */ code) {
    if (written || !cfg.traceOut) return;
    written = true;
    const doc = {
      version: 1, node: process.version, strategy: { name: S.strategy.name, params: S.strategy.params }, seed: cfg.seed || 0,
      mode: replay ? (cfg.replay.holdSet ? 'replay-subset' : 'replay') : 'fuzz', installed, exitCode: code,
      heldAtExit: S.held, replaySkipped: replay ? replay.skipped : 0, uncaught, hang, events: S.trace.concat(pendingRecords()),
      coverage: coverage ? coverage.take() : undefined,
    };
    try { fs.writeFileSync(cfg.traceOut, JSON.stringify(doc)); } catch { /* the launcher reports a missing trace */ }
  }
  process.on('exit', (code) => write(code));

  if (cfg.timeoutMs > 0) {
    const t = makeSlot(() => {
      const pending = require('./pending.cjs').describePending();
      hang = { timeoutMs: cfg.timeoutMs, pending };
      process.stderr.write(`fuzzfarm: hang: the program did not finish within ${cfg.timeoutMs} ms; pending:\n${pending.map((l) => `  - ${l}`).join('\n')}\n`);
      write(124);
      process.exit(124);
    }, cfg.timeoutMs, false);
    void t;
  }
}
