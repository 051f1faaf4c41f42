// @ts-check
// The scheduler: every intercepted completion becomes an event that is
// either delivered at once (synchronously, inside core's own callback) or
// held in a FIFO queue per key and released later, each release in its own
// macrotask so that nextTicks and microtasks drain in between, inside an
// AsyncResource created at hold time (async context and ALS stores kept).
//
//   fuzz:   strategy.hold(ev) picks a release slot (check phase or n ms); when
//           a slot fires, strategy.pick() delivers one ripe queue head.
//   replay: an event recorded at seq s waits until every event recorded
//           before it has run (or was skipped by the watchdog).
//
// Liveness: each slot is ref'd iff the source of its event is.
'use strict';
/**
 * The scheduler's records, typed in types.ts:
 * @typedef {import('./types').SchedEvent} SchedEvent
 * @typedef {import('./types').ResInfo} ResInfo
 * @typedef {import('./types').ProgramTimer} ProgramTimer
 * @typedef {import('./types').StreamHandle} StreamHandle
 * @typedef {import('./types').Slot} Slot
 * @typedef {import('./types').Strategy} Strategy
 * @typedef {import('./types').Replayer} Replayer
 * @typedef {import('./types').TickingProcess} TickingProcess
 * @typedef {import('../trace').TraceEvent} TraceEvent
 */
const { AsyncResource, executionAsyncId, triggerAsyncId } = require('node:async_hooks');
const timers = require('node:timers');
const { captureSite } = require('./sites.cjs');

const origSetTimeout = timers.setTimeout;
const origSetImmediate = timers.setImmediate;
const origClearTimeout = timers.clearTimeout;
const origClearImmediate = timers.clearImmediate;
const now = () => performance.now();
/**
 * Node's timer clock is libuv's loop time in whole ms: two timers whose
 * deadlines are at most this far apart may run in either order (older Node
 * versions did swap them); timers further apart always run in deadline order.
 */
const TICK_MS = 1;

/** Until the preload starts (index.cjs sets the run's strategy): what makeStrategy('none') gives. */
/** @type {Strategy} */
const NO_STRATEGY = { name: 'none', params: {}, hold: () => -1, pick: () => 0 };

/** Shared state of the interceptor (one per thread). */
const S = {
  root: process.cwd(),
  /** @type {Strategy} */ strategy: NO_STRATEGY,
  clock: 0,
  seq: 0,
  t0: now(),
  /** @type {TraceEvent[]} */ trace: [],
  /** @type {Map<object, SchedEvent[]>} */ queues: new Map(),
  held: 0,
  heldMessages: 0,
  /** held timer events (kind 'timeout'): the late loop's queue, in deadline order when released */
  /** @type {Set<SchedEvent>} */ heldTimers: new Set(),
  /** the program's armed timers, not yet delivered or cleared (hooks.cjs keeps it) */
  /** @type {Set<ProgramTimer>} */ liveTimers: new Set(),
  /** loop time of the timers phase in progress: a timer due by then runs before the next check phase */
  coDue: -Infinity,
  /** events delivered so far, and the held events that wait for a number of them (postponed until others ran) */
  delivered: 0,
  /** @type {Set<SchedEvent>} */ waiters: new Set(),
  /** one-shot requests issued and not yet answered by core (fs, dns, crypto, connect, write, zlib, fs.promises) */
  /** @type {Set<object>} */ inflight: new Set(),
  /** held events that wait until the program is otherwise quiet (see quietNow), and the slot that polls for it */
  /** @type {Set<SchedEvent>} */ quiet: new Set(),
  /** @type {Slot | null} */ quietPoll: null,
  /** when the last completion arrived from core */
  lastArrival: 0,
  /** @type {NodeJS.Immediate | null} */ coDueReset: null,
  /** kind of the last delivered event (a timer right after a timer, before a check phase: same timers phase) */
  /** @type {string | null} */ lastKind: null,
  /** number of the loop phase reads and child exits arrive in (see arrivalPhase) */
  arrPhase: 0,
  /** @type {NodeJS.Immediate | null} */ arrPhaseEnd: null,
  /** event being delivered (for sites of resources created without a user frame) */
  /** @type {SchedEvent | null} */ current: null,
  /** >0 while the interceptor creates its own timers/immediates */
  internal: 0,
  /** >0 while a Worker's exit runs (its synchronous drain must pass through) */
  forcePass: 0,
  /** @type {Slot | null} */ drain: null,
  /** @type {Replayer | null} */ replay: null,
  /** a stream handle's reads: resumed when its last held read is released, stopped while reads are held (hooks.cjs) */
  /** @type {(h: StreamHandle) => void} */ resumeHandle: () => {},
  /** @type {(h: StreamHandle) => void} */ stopHandle: () => {},
  /** the registration record of a resource, if it has one */
  infoOf: (/** @type {object} */ res) => infos.get(res),
};

/** @type {WeakMap<object, ResInfo>} */
const infos = new WeakMap();
/** @type {Map<string, number>} */
const siteOrd = new Map();

/**
 * The registration record of a resource: site, api, per-site ordinal.
 * Created on first sight, from `known` or from the current stack.
 */
/**
 * @param {object} res
 * @param {{site: string, api: string} | null} [known]
 * @returns {ResInfo}
 */
function resInfo(res, known) {
  let r = infos.get(res);
  if (r) return r;
  const c = known || captureSite(S.root);
  const site = c ? c.site : S.current ? S.current.site : 'internal';
  const api = c ? c.api : S.current ? S.current.api : '';
  const ord = (siteOrd.get(site) || 0) + 1;
  siteOrd.set(site, ord);
  // the execution that issued it (an internal step inherits its user call's)
  const regAsync = c || !S.current ? executionAsyncId() : S.current.info.regAsync;
  r = { site, api, ord, reg: S.clock++, regAsync, armedAt: /** @type {number | undefined} */ (undefined), armAsync: -1, n: Object.create(null) };
  infos.set(res, r);
  return r;
}

/** Mark a resource as (re-)armed now: its next event is pending from here. */
function rearm(/** @type {object} */ res) {
  const r = resInfo(res);
  r.reg = S.clock++;
  r.armedAt = now();
  r.armAsync = executionAsyncId();
}

/**
 * @param {string} kind @param {object} res @param {object} key
 * @param {() => unknown} call @param {() => boolean} refd
 * @returns {SchedEvent}
 */
function makeEvent(kind, res, key, call, refd) {
  const info = resInfo(res);
  const n = info.n[kind] || 0;
  info.n[kind] = n + 1;
  S.lastArrival = now();
  return {
    id: `${kind}@${info.site}#${info.ord}.${n}`, kind, site: info.site, api: info.api, info, res, key, call, refd,
    reg: info.reg, arr: S.clock++, asyncId: executionAsyncId(), triggerId: triggerAsyncId(),
    deadline: 0, waitFor: 0, until: 0, held: false, delay: -1, ripe: false, ripeAt: 0, prio: 0, ar: null, slot: null,
    gate: null, rec: null, dropped: false, last: false, straggler: false, notBefore: 0, eligibleAt: -1, afterTimer: null, afterStart: 0,
    /* keys whose earlier-arrived reads run in this event's poll phase */ samePhase: null,
    ap: kind === 'read' || kind === 'exit' ? arrivalPhase() : -1,
  };
}

/**
 * The poll phase an event arrives from core in, as a number: every read and
 * child exit arriving before the next check phase shares it (one unref'd
 * immediate ends it; none is armed while nothing arrives).
 */
function arrivalPhase() {
  if (!S.arrPhaseEnd) {
    S.arrPhase++;
    S.internal++;
    try {
      S.arrPhaseEnd = origSetImmediate(() => { S.arrPhaseEnd = null; });
      S.arrPhaseEnd.unref();
    } finally { S.internal--; }
  }
  return S.arrPhase;
}

// ---- slots ---------------------------------------------------------------
/** @param {() => void} fn @param {number} delay @param {boolean} refd @returns {Slot} */
function makeSlot(fn, delay, refd) {
  S.internal++;
  try {
    if (delay === 0 && refd) return { imm: origSetImmediate(fn), fn };
    const t = origSetTimeout(fn, Math.max(1, delay));
    if (!refd) t.unref();
    return { t, fn };
  } finally { S.internal--; }
}
function cancelSlot(/** @type {Slot | null} */ s) {
  if (!s) return;
  if (s.imm) origClearImmediate(s.imm); else origClearTimeout(s.t);
}
/** Mirror a source's ref state onto the slots of its held events. */
function refChanged(/** @type {object} */ res, /** @type {object} */ key) {
  const q = S.queues.get(key);
  if (!q) return;
  for (const ev of q) {
    if (ev.res !== res || !ev.slot) continue;
    const refd = ev.refd();
    if (ev.slot.t) { if (refd) ev.slot.t.ref(); else ev.slot.t.unref(); }
    else if (!refd) { cancelSlot(ev.slot); ev.slot = makeSlot(ev.slot.fn, 1, false); }
  }
}

// ---- delivery --------------------------------------------------------------
/** Deliver now, in the current macrotask; record it in the trace. */
function deliverSync(/** @type {SchedEvent} */ ev) {
  const t = now() - S.t0;
  ev.info.reg = S.clock;
  /** @type {TraceEvent} */
  const rec = {
    seq: S.seq++, id: ev.id, kind: ev.kind, site: ev.site, api: ev.api, async: ev.asyncId, trigger: ev.triggerId,
    held: ev.held, delay: ev.delay, reg: ev.reg, arr: ev.arr, del: S.clock++, t: Math.round(t * 100) / 100,
  };
  // tp: ran in the same timers phase as the timer delivered before it (no
  // poll phase between them), which a replay must keep: I/O that the
  // recording saw only later would otherwise slip in between
  if (ev.kind === 'timeout' && S.lastKind === 'timeout' && S.coDueReset) rec.tp = true;
  S.lastKind = ev.kind;
  S.trace.push(rec);
  if (S.replay) S.replay.delivered(ev);
  if (ev.kind === 'timeout') timersPhase(ev.deadline);
  S.delivered++;
  if (S.strategy && S.strategy.delivered) S.strategy.delivered(ev);
  if (S.waiters.size) {
    let woke = false;
    for (const w of S.waiters) {
      if (w !== ev && S.delivered >= w.until) { S.waiters.delete(w); w.ripe = true; w.ripeAt = now(); woke = true; }
    }
    if (woke) scheduleDrain();
  }
  const prev = S.current;
  S.current = ev;
  // captured before the call: the callback may close the handles
  const after = !S.replay && ev.samePhase ? ev.samePhase() : null;
  try { return ev.call(); } finally {
    S.current = prev;
    if (after && after.length) { releaseSamePhase(ev, after); openExitWindow(ev, after); }
    if (S.replay && ev.kind === 'timeout') releaseSamePhaseTimers(S.replay);
  }
}

/** Replay: the recorded timers that ran in this timers phase after the one just delivered, at once. */
function releaseSamePhaseTimers(/** @type {Replayer} */ replay) {
  for (let h = replay.samePhaseNext(); h; h = replay.samePhaseNext()) {
    /** @type {TickingProcess} */ (process)._tickCallback();
    release(h);
  }
}

/**
 * A child's exit and its output, as libuv reports them. The exit comes from
 * the SIGCHLD signal pipe in a poll phase; there libuv reaps every child that
 * has exited by then, so a child whose SIGCHLD came after epoll returned is
 * reported exited in that phase while the bytes it wrote before exiting show
 * up in the next poll phase's epoll batch. Either way the output is read no
 * later than the poll phase after the exit's (plain Node, unless the process
 * stalls for the timer's length in between), so a grace timer armed in the exit
 * callback finds it. Holding such a read longer is not a schedule Node can
 * produce: a 50 ms grace timer on 'exit' fired before the output it waits for
 * (a false alarm on simple-git 1.105.0).
 *
 * Phases are counted by arrivalPhase (phases in which a read or exit
 * arrived), so "the next poll phase" is the next one with an arrival.
 */
/** stdio handle -> last arrival phase whose reads of it run without delay (set when its child's exit is delivered) */
/** @type {WeakMap<object, number>} */
const exitWindow = new WeakMap();

/** A read that belongs to a delivered exit's window: delivered as it arrives. */
function inExitWindow(/** @type {SchedEvent} */ ev) {
  const last = exitWindow.get(ev.key);
  return last !== undefined && ev.ap <= last;
}

function openExitWindow(/** @type {SchedEvent} */ ev, /** @type {object[]} */ keys) {
  // an exit delivered late (it was held) still covers the phase it is delivered in
  const last = Math.max(ev.ap + 1, S.arrPhaseEnd ? S.arrPhase : S.arrPhase + 1);
  for (const k of keys) exitWindow.set(k, last);
}

/**
 * Release, right after `ev`, the held reads of `keys` that arrived from core
 * before it or within its window (its poll phase and the next), oldest first,
 * nextTicks and microtasks drained between them and no timer, check phase or
 * other I/O in between.
 */
function releaseSamePhase(/** @type {SchedEvent} */ ev, /** @type {object[]} */ keys) {
  for (;;) {
    /** @type {SchedEvent | null} */
    let next = null;
    for (const k of keys) {
      const q = S.queues.get(k);
      const h = q && q[0];
      if (h && h.kind === 'read' && (h.arr < ev.arr || h.ap <= ev.ap + 1) && (!next || h.arr < next.arr)) next = h;
    }
    if (!next) return;
    /** @type {TickingProcess} */ (process)._tickCallback();
    release(next);
  }
}

function readyHeads() {
  const out = [];
  for (const q of S.queues.values()) {
    const h = q[0];
    if (h && (S.replay ? S.replay.ripe(h) : h.ripe) && (!h.gate || h.gate())) out.push(h);
  }
  return out;
}

function unqueue(/** @type {SchedEvent} */ ev) {
  const q = S.queues.get(ev.key);
  if (!q) return;
  const i = q.indexOf(ev);
  if (i < 0) return;
  q.splice(i, 1);
  if (q.length === 0) S.queues.delete(ev.key);
  S.held--;
  if (ev.kind === 'message') S.heldMessages--;
  if (ev.kind === 'timeout') S.heldTimers.delete(ev);
  S.waiters.delete(ev);
  S.quiet.delete(ev);
  cancelSlot(ev.slot);
  ev.slot = null;
}

/** Release a held event: its own macrotask is the slot or drain that called us. */
function release(/** @type {SchedEvent} */ ev) {
  unqueue(ev);
  const ar = /** @type {AsyncResource} held: hold() gave it one */ (ev.ar);
  try {
    return ar.runInAsyncScope(deliverSync, null, ev);
  } finally {
    ar.emitDestroy();
    if (ev.kind === 'read') S.resumeHandle(/** @type {StreamHandle} a read's resource */ (ev.res));
  }
}

/**
 * Timers run in deadline order (Node's timer lists sit in a priority queue by
 * their next deadline): a fired timer may pass no held timer that is due
 * earlier, or equally early and fired first. A held (late) timer therefore
 * holds back every timer due after it: the loop is late as a whole.
 * In a full replay the recorded order rules instead.
 */
function timerGate(/** @type {SchedEvent} */ ev) {
  if (S.replay && !S.replay.subset) return true;
  for (const t of S.heldTimers) {
    if (t !== ev && (t.deadline < ev.deadline || (t.deadline === ev.deadline && t.arr < ev.arr))) return false;
  }
  // an armed timer due earlier that has not fired yet: Node can fire it after
  // this one only because our own release slots share its duration lists
  for (const tm of S.liveTimers) {
    if (tm !== ev.res && !tm._destroyed && typeof tm._idleStart === 'number' && tm._idleStart + tm._idleTimeout < ev.deadline) return false;
  }
  return true;
}

/**
 * A timer ran: the loop's time is at least its deadline until the next check
 * phase, so a timer due by then that fires in the meantime must run in this
 * same timers phase (intercept delivers it at once).
 */
function timersPhase(/** @type {number} */ v) {
  if (v > S.coDue) S.coDue = v;
  if (S.coDueReset) return;
  S.internal++;
  try {
    S.coDueReset = origSetImmediate(() => { S.coDueReset = null; S.coDue = -Infinity; });
    S.coDueReset.unref();
  } finally { S.internal--; }
}

/**
 * Release a held timer as one timers phase does: after it, every held timer
 * due by the phase's loop time runs too, in deadline order (those within one
 * clock tick in the strategy's order), nextTicks and microtasks drained
 * between them and no check phase or I/O callback in between. The loop time
 * is the released timer's deadline, or for a late loop (strategy.lateLoop)
 * now: every timer that has fired by now is due.
 */
function releaseTimers(/** @type {SchedEvent} */ first) {
  release(first);
  if (S.replay) return;
  const bound = S.strategy.lateLoop && S.strategy.lateLoop(first) ? Infinity : first.deadline;
  timersPhase(bound);
  for (;;) {
    /** @type {SchedEvent[]} */
    const due = [];
    let min = Infinity;
    for (const t of S.heldTimers) {
      const q = S.queues.get(t.key);
      if (q && q[0] === t && t.deadline <= bound) { due.push(t); if (t.deadline < min) min = t.deadline; }
    }
    if (due.length === 0) return;
    const band = due.filter((t) => t.deadline <= min + TICK_MS).sort((a, b) => a.deadline - b.deadline || a.arr - b.arr);
    const next = band.length === 1 ? band[0] : band[S.strategy.pick(band)];
    /** @type {TickingProcess} */ (process)._tickCallback();
    release(next);
  }
}

/** Deliver one ready head (strategy's pick), then make sure the others get a drain. */
function pump() {
  try {
    const heads = readyHeads();
    if (heads.length) {
      const ev = heads.length === 1 ? heads[0] : heads[S.replay ? S.replay.pick(heads) : S.strategy.pick(heads)];
      if (ev.kind === 'timeout') releaseTimers(ev); else release(ev);
    }
  } finally {
    scheduleDrain();
  }
}

function scheduleDrain() {
  if (S.drain) return;
  const heads = readyHeads();
  if (heads.length === 0) { if (S.replay) S.replay.arm(); return; }
  let refd = false;
  for (const h of heads) if (h.refd()) { refd = true; break; }
  S.drain = makeSlot(() => { S.drain = null; pump(); }, 0, refd);
}

/** Put an event in its key's FIFO; with delay >= 0 give it a release slot. */
function hold(/** @type {SchedEvent} */ ev, /** @type {number} */ delay) {
  ev.held = true;
  ev.delay = delay;
  ev.ar = new AsyncResource('FUZZFARM_HOLD', { requireManualDestroy: true });
  let q = S.queues.get(ev.key);
  if (!q) { q = []; S.queues.set(ev.key, q); }
  q.push(ev);
  S.held++;
  if (ev.kind === 'message') S.heldMessages++;
  if (ev.kind === 'timeout') S.heldTimers.add(ev);
  // libuv keeps reading while reads are held: stop it (memory), except in a
  // replay, where stopping would merge later chunks into fewer reads and so
  // rename the recorded events
  if (ev.kind === 'read' && !S.replay) S.stopHandle(/** @type {StreamHandle} a read's resource */ (ev.res));
  // postponed until `waitFor` other events have run, or `delay` ms at most
  if (ev.waitFor > 0) { ev.until = S.delivered + ev.waitFor; S.waiters.add(ev); }
  // postponed until nothing else is in flight or held, or `delay` ms at most
  if (ev.last) { S.quiet.add(ev); pollQuiet(); }
  if (delay >= 0) {
    ev.ripeAt = now() + delay;
    ev.slot = makeSlot(() => { ev.slot = null; ev.ripe = true; pump(); }, delay, ev.refd());
  }
}

/**
 * A completion held "until last" (a thread-pool or socket completion has no
 * deadline: a slow disk or a busy pool answers it after everything else the
 * program started) becomes ripe once the program is otherwise quiet: no
 * one-shot request in flight, every other held event also waiting to be last
 * (or queued behind one), and nothing arrived for QUIET_MS. Polled every
 * QUIET_MS while such events are held; their own delay still bounds the wait.
 */
const QUIET_MS = 2;
function quietNow() {
  if (S.inflight.size > 0 || now() - S.lastArrival < QUIET_MS) return false;
  for (const q of S.queues.values()) if (!q[0].last) return false;
  return true;
}
/**
 * Oldest first counts a late hold from when it became eligible (its timer
 * ran and its notBefore passed, seen at a poll), not from its arrival: work
 * that the timer started and that arrived before then is older.
 */
function markEligible() {
  const t = now();
  for (const ev of S.quiet) if (ev.eligibleAt < 0 && ev.notBefore <= t && timerRan(ev)) ev.eligibleAt = ev.afterTimer || ev.notBefore ? S.clock++ : ev.arr;
}
/** The timer a late hold waits for has run (or was cleared or re-armed). */
function timerRan(/** @type {SchedEvent} */ ev) {
  const tm = ev.afterTimer;
  return !tm || tm._destroyed || tm._idleStart !== ev.afterStart;
}
function pollQuiet() {
  if (S.quietPoll || S.quiet.size === 0) return;
  S.quietPoll = makeSlot(() => {
    S.quietPoll = null;
    markEligible();
    if (quietNow()) {
      // Of those that are eligible (a late hold first waits for the
      // program's timers), the oldest is answered first, or with a LIFO
      // strategy the newest: the operation started first finishes last.
      const t = now();
      const lifo = !!(S.strategy && S.strategy.lifo);
      /** @type {SchedEvent | null} */
      let pick = null;
      let pickArr = 0;
      /** @type {SchedEvent | null} */
      let straggler = null;
      for (const ev of S.quiet) {
        if (ev.eligibleAt < 0) continue;
        const q = S.queues.get(ev.key);
        if (!q || q[0] !== ev) continue;
        if (ev.straggler) { straggler = ev; continue; }
        const arr = lifo ? ev.arr : ev.eligibleAt;
        if (!pick || (lifo ? arr > pickArr : arr < pickArr)) { pick = ev; pickArr = arr; }
      }
      // a straggler goes when it is the last one waiting
      if (!pick && straggler && S.quiet.size === 1) pick = straggler;
      if (pick) { S.quiet.delete(pick); pick.ripe = true; pick.ripeAt = t; pump(); }
    }
    pollQuiet();
  }, QUIET_MS, false);
}

/**
 * Entry point of every hook: a completion has arrived from core.
 * Returns the callback's return value when delivered synchronously.
 */
function intercept(/** @type {SchedEvent} */ ev) {
  const q = S.queues.get(ev.key);
  if (S.forcePass > 0 && ev.kind === 'message' && !q) return deliverSync(ev);
  if (S.replay) return S.replay.intercept(ev, q);
  const d = (ev.kind === 'timeout' && ev.deadline <= S.coDue) || (ev.kind === 'read' && inExitWindow(ev)) ? -1 : S.strategy.hold(ev);
  if (d < 0 && !q && (!ev.gate || ev.gate())) {
    try { return deliverSync(ev); } finally { if (ev.kind === 'timeout' && S.heldTimers.size) scheduleDrain(); }
  }
  hold(ev, d < 0 ? 0 : d);
  return undefined;
}

/**
 * Events that arrived but were still held when the program ended (a crash
 * usually): appended to the trace after the delivered ones, in arrival
 * order, so that a replay also keeps them back until after the crash point.
 */
function pendingRecords() {
  const evs = [];
  for (const q of S.queues.values()) for (const ev of q) evs.push(ev);
  evs.sort((a, b) => a.arr - b.arr);
  return evs.map((ev) => ({
    seq: S.seq++, id: ev.id, kind: ev.kind, site: ev.site, api: ev.api, async: ev.asyncId, trigger: ev.triggerId,
    held: true, delay: ev.delay, reg: ev.reg, arr: ev.arr, del: S.clock++, t: Math.round((now() - S.t0) * 100) / 100, undelivered: true,
  }));
}

/** Drop the held events of a resource (timer cleared, immediate cleared, timer refreshed). */
function drop(/** @type {object} */ res, /** @type {object} */ key) {
  const q = S.queues.get(key);
  if (!q) return;
  for (const ev of q.slice()) {
    if (ev.res !== res) continue;
    unqueue(ev);
    ev.dropped = true;
    /** @type {AsyncResource} held: hold() gave it one */ (ev.ar).emitDestroy();
  }
  scheduleDrain();
}

/** @param {object} res @param {object} key */
function hasHeld(res, key) {
  const q = S.queues.get(key);
  if (!q) return false;
  for (const ev of q) if (ev.res === res) return true;
  return false;
}

module.exports = {
  S, resInfo, rearm, makeEvent, intercept, hold, pump, scheduleDrain, drop, hasHeld, refChanged, deliverSync, pendingRecords,
  makeSlot, cancelSlot, readyHeads, origSetTimeout, origClearTimeout, now, timerGate, TICK_MS,
};
