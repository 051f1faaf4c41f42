// @ts-check
// Worker threads under the fuzzer: the slow thread.
//
// The fuzzer runs the program's callbacks on its main thread; a worker
// thread the program starts (worker_threads.Worker) runs on its own, at the
// pace the OS gives it. What the OS may do, and a loaded machine does, is
// stop a thread at any instruction for as long as it likes: right after the
// thread posted a message, its receiver can handle the message, and go on,
// while the sender is still on the next line. Handshakes that assume the
// sender moves on at once break there (thread-stream #245: the main thread
// snapshots the write index when the worker says READY and waits for the
// worker's next read to land on it exactly; if the main thread writes again
// before that read, the read jumps past the snapshot).
//
// Rule (engine README, "slow thread"): right after a postMessage on its
// parentPort, a worker thread may stop until its parent has handled that
// message and then started `steps` more callbacks (2..1+stallSteps; the
// second one starting means the first has finished, its nextTicks too),
// with probability stallProb, at most `stalls` times per thread and never
// longer than stallMs (a parent that waits for this thread, or never looks
// at its messages, only makes the stall end at the bound). Blocking is an
// Atomics.wait: the thread does nothing, as if descheduled. Nothing inside
// either thread is reordered and no message is lost or delayed in transit.
// The stall is counted in the parent's steps, not in milliseconds, because
// what decides such a race is whether the parent acted in between, and a
// parent that is idle for 50 ms between two steps would need a 50 ms stall.
//
// How: every Worker the program starts gets the preload in its execArgv, its
// config in its environment (FUZZFARM_THREAD, removed again as the thread
// starts, as FUZZFARM_NODE is in a process), and as its very first message
// two shared counters, which the preload in the thread takes off the port
// (receiveMessageOnPort) before the program can see it: how many of its
// messages the parent has handled (hooks.cjs bumps it after each dispatch on
// the Worker's port) and how many callbacks the parent has started. The
// thread's seed comes from the run's seed and its ordinal (1, 2... in
// creation order), so a seed and its replay stall the same posts. A Worker
// given `env: SHARE_ENV` shares the process's environment and is left alone.
'use strict';
/**
 * @typedef {import('../preload-messages').ThreadStart} ThreadStart
 * @typedef {{ execArgv?: string[], env?: unknown }} WorkerOptions
 */
const { childSeed, PRELOAD } = require('./children.cjs');

const ENV_KEY = 'FUZZFARM_THREAD';
/** The key of the first message, which carries the shared counters. */
const MSG_KEY = '__fuzzfarmThread';
/** On a Worker's public port (main side): the counter of its messages handled, bumped by hooks.cjs. */
const kHandled = Symbol.for('fuzzfarm.threadHandled');
/** On a Worker's internal port (stdio, online and exit notices): Node's own messages are no step of the program. */
const kInternal = Symbol.for('fuzzfarm.internalPort');

/** Wait (blocking this thread) until cell[0] >= target or the deadline passes. @param {Int32Array} cell @param {number} target @param {number} deadline */
function waitAtLeast(cell, target, deadline) {
  for (;;) {
    const v = Atomics.load(cell, 0);
    if (v >= target) return true;
    const rem = deadline - performance.now();
    if (rem <= 0) return false;
    Atomics.wait(cell, 0, v, rem);
  }
}

/** Count one more handled or started thing and wake a thread waiting on it. @param {Int32Array} cell */
function bump(cell) {
  Atomics.add(cell, 0, 1);
  Atomics.notify(cell, 0);
}

/** Whether an execArgv already loads the preload. @param {readonly string[]} argv */
function loadsPreload(argv) {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === '-r' || a === '--require') && argv[i + 1] === PRELOAD) return true;
    if (a === `--require=${PRELOAD}`) return true;
  }
  return false;
}

/**
 * In a thread running the fuzzer: every Worker started from now on is a slow thread.
 * @param {{ seed: number, stallProb: number, stallSteps: number, stallMs: number, stalls: number }} cfg
 * @param {Pick<import('./types').Strategy, 'delivered'>} strategy the run's strategy: its delivered hook also counts the parent's steps
 */
function installThreads(cfg, strategy) {
  const wt = require('node:worker_threads');
  const Base = wt.Worker;
  const steps = new Int32Array(new SharedArrayBuffer(4));
  const prev = strategy.delivered;
  strategy.delivered = (ev) => {
    const res = /** @type {Record<symbol, unknown> | null | undefined} */ (ev.res);
    if (!(ev.kind === 'message' && res && res[kInternal])) bump(steps);
    if (prev) prev(ev);
  };
  let n = 0;
  class Worker extends Base {
    /** @param {string | URL} file @param {WorkerOptions & Record<string, unknown>} [options] */
    constructor(file, options) {
      const o = { ...(options || {}) };
      if (o.env !== wt.SHARE_ENV) {
        n += 1;
        /** @type {ThreadStart} */
        const start = { thread: n, seed: childSeed(cfg.seed, 1000 + n), stallProb: cfg.stallProb, stallSteps: cfg.stallSteps, stallMs: cfg.stallMs, stalls: cfg.stalls };
        // Node's default for `env` is a copy of this thread's process.env
        const env = /** @type {Record<string, string>} */ ({ ...(o.env && typeof o.env === 'object' ? o.env : process.env) });
        env[ENV_KEY] = JSON.stringify(start);
        o.env = env;
        const argv = o.execArgv || process.execArgv;
        if (!loadsPreload(argv)) o.execArgv = [...argv, '--require', PRELOAD];
      }
      super(file, /** @type {import('node:worker_threads').WorkerOptions} */ (o));
      if (o.env === wt.SHARE_ENV) return;
      const handled = new Int32Array(new SharedArrayBuffer(4));
      const self = /** @type {Worker & Record<symbol, unknown>} */ (this);
      for (const k of Object.getOwnPropertySymbols(this)) {
        const port = /** @type {Record<symbol, unknown> | undefined} the two below are MessagePorts */ (self[k]);
        if (k.description === 'kPublicPort' && port) port[kHandled] = handled;
        if (k.description === 'kPort' && port) port[kInternal] = true;
      }
      // first in the thread's queue: posted before the constructor returns to the program
      this.postMessage({ [MSG_KEY]: { handled: handled.buffer, steps: steps.buffer } });
    }
  }
  wt.Worker = /** @type {typeof Base} */ (Worker);
  try { require('node:module').syncBuiltinESMExports(); } catch { /* older Node */ }
}

/** In a worker thread started by installThreads: take the config out of the environment, stall after posts. */
function startThreadIfAsked() {
  const wt = require('node:worker_threads');
  const raw = process.env[ENV_KEY];
  if (wt.isMainThread || !raw) return;
  delete process.env[ENV_KEY];
  const port = wt.parentPort;
  if (!port) return;
  /** @type {ThreadStart} */
  const cfg = JSON.parse(raw);
  // the parent posted the counters before this thread ran any code: they are
  // there at once (the bound only guards against a parent that did not)
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const until = performance.now() + 1000;
  let first = wt.receiveMessageOnPort(port);
  while (!first && performance.now() < until) { Atomics.wait(pause, 0, 0, 1); first = wt.receiveMessageOnPort(port); }
  /** @type {{ handled: SharedArrayBuffer, steps: SharedArrayBuffer } | undefined} */
  const cells = first && first.message && typeof first.message === 'object' ? first.message[MSG_KEY] : undefined;
  if (!cells) return;
  const handled = new Int32Array(cells.handled);
  const steps = new Int32Array(cells.steps);
  const rng = require('./strategies.cjs').makeRng(cfg.seed);
  const post = port.postMessage;
  let posted = 0;
  let left = cfg.stalls;
  /** @this {unknown} @param {unknown[]} args */
  port.postMessage = function (...args) {
    const r = Reflect.apply(post, this, args);
    posted += 1;
    if (left > 0 && rng.unit() < cfg.stallProb) {
      left -= 1;
      const more = rng.between(2, 1 + Math.max(1, cfg.stallSteps));
      const deadline = performance.now() + cfg.stallMs;
      if (waitAtLeast(handled, posted, deadline)) waitAtLeast(steps, Atomics.load(steps, 0) + more, deadline);
    }
    return r;
  };
}

module.exports = { installThreads, startThreadIfAsked, bump, kHandled };
