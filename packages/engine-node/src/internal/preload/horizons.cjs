// @ts-check
// Delay sizes scaled to the program's own timer horizons, bounded by the
// timers that guard an operation.
//
// A race between a completion and a program timer needs the completion to
// arrive after the timer: tens to hundreds of ms in real programs, not the
// few ms that real I/O jitter gives. So a delay is drawn from the live
// program timers: "cross" one of them (its remaining time plus 1..4 ms) or a
// uniform amount up to the horizon (the farthest of them).
//
// But a delay longer than the program's own timeout for that operation only
// produces the timeout, a different and uninteresting failure (a socket hang
// up in a fixed release). Guards of an operation are never crossed; a
// delay takes at most half the time left before the earliest guard fires:
//   - socket idle timeouts (socket.setTimeout, http request/agent/server
//     timeouts all arm one): they guard every socket and thread-pool event,
//     because the peer of an in-process connection is often the program too;
//   - timers armed in the same execution as the operation was issued
//     (`setTimeout(onTimeout, 100); fs.readFile(..., done)`), followed along
//     the operation's internal steps (readFile's open, stat, read, close).
'use strict';
/**
 * @typedef {import('./types').SchedEvent} SchedEvent
 * @typedef {import('./types').ProgramTimer} ProgramTimer
 * @typedef {import('node:net').Socket & Record<symbol, unknown>} SymbolSocket a socket with Node's internal symbol-keyed fields
 */
const { S, now } = require('./scheduler.cjs');

/** Horizons beyond this are keep-alive and housekeeping timers, not races. */
const MAX_HORIZON_MS = 600;
/** A bounded delay ends this long before the guard's deadline. */
const GUARD_MARGIN_MS = 3;

/** @type {WeakSet<object>} */
const socketTimers = new WeakSet();
let installed = false;

/** Mark the timers that socket.setTimeout arms (the only public door to them). */
function installGuards() {
  if (installed) return;
  installed = true;
  const net = require('node:net');
  const SP = net.Socket.prototype;
  const setTimeout = SP.setTimeout;
  /** @type {symbol | undefined} */
  let kTimeout;
  /** @this {SymbolSocket} @param {unknown[]} args */
  SP.setTimeout = function (...args) {
    const r = Reflect.apply(setTimeout, this, args);
    if (!kTimeout) kTimeout = Object.getOwnPropertySymbols(this).find((s) => s.description === 'timeout');
    const t = kTimeout ? this[kTimeout] : null;
    if (t && typeof t === 'object') socketTimers.add(t);
    return r;
  };
}

/** @returns {Set<ProgramTimer>} the program's armed timers (hooks.cjs keeps them) */
function liveTimers() { return require('./hooks.cjs').liveTimers; }

/**
 * Remaining ms of each live timer that could race with `ev`, and the
 * largest delay `ev` may get without crossing one of its guards (Infinity
 * when `guards` is false: the unbounded NACD-like baseline).
 * @param {SchedEvent} ev @param {boolean} [guards]
 * @returns {{cross: number[], timers: ProgramTimer[], guard: number}} `timers[i]` is the timer of `cross[i]`
 */
function horizonOf(ev, guards = true) {
  const t = now();
  /** @type {number[]} */
  const cross = [];
  /** @type {ProgramTimer[]} */
  const timers = [];
  let guard = Infinity;
  const regAsync = ev.info ? ev.info.regAsync : -1;
  for (const tm of liveTimers()) {
    if (tm._destroyed || tm === ev.res) continue;
    const info = S.infoOf(tm);
    if (!info || info.armedAt === undefined) continue;
    const left = info.armedAt + tm._idleTimeout - t;
    if (left <= 0) continue;
    const guarding = guards && (socketTimers.has(tm) || (regAsync > 0 && info.armAsync === regAsync));
    if (guarding) { if (left < guard) guard = left; continue; }
    if (left <= MAX_HORIZON_MS) { cross.push(left); timers.push(tm); }
  }
  // half of what is left: an operation of several steps (readFile: open,
  // stat, read, close) or a FIFO of reads behind this one still ends in time
  return { cross, timers, guard: guard === Infinity ? Infinity : Math.max(0, Math.floor(guard / 2 - GUARD_MARGIN_MS)) };
}

module.exports = { installGuards, horizonOf, MAX_HORIZON_MS };
