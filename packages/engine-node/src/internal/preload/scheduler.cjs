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
const { AsyncResource, executionAsyncId, triggerAsyncId } = require('node:async_hooks');
const timers = require('node:timers');
const { captureSite } = require('./sites.cjs');

const origSetTimeout = timers.setTimeout;
const origSetImmediate = timers.setImmediate;
const origClearTimeout = timers.clearTimeout;
const origClearImmediate = timers.clearImmediate;
const now = () => performance.now();

/** Shared state of the interceptor (one per thread). */
const S = {
  root: process.cwd(),
  /** @type {any} */ strategy: null,
  clock: 0,
  seq: 0,
  t0: now(),
  /** @type {any[]} */ trace: [],
  /** @type {Map<any, any[]>} */ queues: new Map(),
  held: 0,
  heldMessages: 0,
  /** event being delivered (for sites of resources created without a user frame) */
  /** @type {any} */ current: null,
  /** >0 while the interceptor creates its own timers/immediates */
  internal: 0,
  /** >0 while a Worker's exit runs (its synchronous drain must pass through) */
  forcePass: 0,
  /** @type {any} */ drain: null,
  /** @type {any} */ replay: null,
  /** @type {(h: any) => void} */ resumeHandle: () => {},
  /** @type {(h: any) => void} */ stopHandle: () => {},
};

/** @type {WeakMap<object, any>} */
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
 */
function resInfo(res, known) {
  let r = infos.get(res);
  if (r) return r;
  const c = known || captureSite(S.root);
  const site = c ? c.site : S.current ? S.current.site : 'internal';
  const api = c ? c.api : S.current ? S.current.api : '';
  const ord = (siteOrd.get(site) || 0) + 1;
  siteOrd.set(site, ord);
  r = { site, api, ord, reg: S.clock++, n: Object.create(null) };
  infos.set(res, r);
  return r;
}

/** Mark a resource as (re-)armed now: its next event is pending from here. */
function rearm(/** @type {object} */ res) { resInfo(res).reg = S.clock++; }

/**
 * @param {string} kind @param {object} res @param {any} key
 * @param {() => any} call @param {() => boolean} refd
 */
function makeEvent(kind, res, key, call, refd) {
  const info = resInfo(res);
  const n = info.n[kind] || 0;
  info.n[kind] = n + 1;
  return {
    id: `${kind}@${info.site}#${info.ord}.${n}`, kind, site: info.site, api: info.api, info, res, key, call, refd,
    reg: info.reg, arr: S.clock++, asyncId: executionAsyncId(), triggerId: triggerAsyncId(),
    held: false, delay: -1, ripe: false, ripeAt: 0, prio: 0, /** @type {any} */ ar: null, /** @type {any} */ slot: null,
    /** @type {any} */ gate: null, /** @type {any} */ rec: null, dropped: false,
  };
}

// ---- slots ---------------------------------------------------------------
/** @param {() => void} fn @param {number} delay @param {boolean} refd */
function makeSlot(fn, delay, refd) {
  S.internal++;
  try {
    if (delay === 0 && refd) return { imm: origSetImmediate(fn), fn };
    const t = origSetTimeout(fn, Math.max(1, delay));
    if (!refd) t.unref();
    return { t, fn };
  } finally { S.internal--; }
}
function cancelSlot(/** @type {any} */ s) {
  if (!s) return;
  if (s.imm) origClearImmediate(s.imm); else origClearTimeout(s.t);
}
/** Mirror a source's ref state onto the slots of its held events. */
function refChanged(/** @type {object} */ res, /** @type {any} */ key) {
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
function deliverSync(/** @type {any} */ ev) {
  const t = now() - S.t0;
  ev.info.reg = S.clock;
  S.trace.push({
    seq: S.seq++, id: ev.id, kind: ev.kind, site: ev.site, api: ev.api, async: ev.asyncId, trigger: ev.triggerId,
    held: ev.held, delay: ev.delay, reg: ev.reg, arr: ev.arr, del: S.clock++, t: Math.round(t * 100) / 100,
  });
  if (S.replay) S.replay.delivered(ev);
  const prev = S.current;
  S.current = ev;
  try { return ev.call(); } finally { S.current = prev; }
}

function readyHeads() {
  const out = [];
  for (const q of S.queues.values()) {
    const h = q[0];
    if (h && (S.replay ? S.replay.ripe(h) : h.ripe) && (!h.gate || h.gate())) out.push(h);
  }
  return out;
}

function unqueue(/** @type {any} */ ev) {
  const q = S.queues.get(ev.key);
  if (!q) return;
  const i = q.indexOf(ev);
  if (i < 0) return;
  q.splice(i, 1);
  if (q.length === 0) S.queues.delete(ev.key);
  S.held--;
  if (ev.kind === 'message') S.heldMessages--;
  cancelSlot(ev.slot);
  ev.slot = null;
}

/** Release a held event: its own macrotask is the slot or drain that called us. */
function release(/** @type {any} */ ev) {
  unqueue(ev);
  const ar = ev.ar;
  try {
    return ar.runInAsyncScope(deliverSync, null, ev);
  } finally {
    ar.emitDestroy();
    if (ev.kind === 'read') S.resumeHandle(ev.res);
  }
}

/** Deliver one ready head (strategy's pick), then make sure the others get a drain. */
function pump() {
  try {
    const heads = readyHeads();
    if (heads.length) release(heads.length === 1 ? heads[0] : heads[S.replay ? S.replay.pick(heads) : S.strategy.pick(heads)]);
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
function hold(/** @type {any} */ ev, /** @type {number} */ delay) {
  ev.held = true;
  ev.delay = delay;
  ev.ar = new AsyncResource('FUZZFARM_HOLD', { requireManualDestroy: true });
  let q = S.queues.get(ev.key);
  if (!q) { q = []; S.queues.set(ev.key, q); }
  q.push(ev);
  S.held++;
  if (ev.kind === 'message') S.heldMessages++;
  // libuv keeps reading while reads are held: stop it (memory), except in a
  // replay, where stopping would merge later chunks into fewer reads and so
  // rename the recorded events
  if (ev.kind === 'read' && !S.replay) S.stopHandle(ev.res);
  if (delay >= 0) {
    ev.ripeAt = now() + delay;
    ev.slot = makeSlot(() => { ev.slot = null; ev.ripe = true; pump(); }, delay, ev.refd());
  }
}

/**
 * Entry point of every hook: a completion has arrived from core.
 * Returns the callback's return value when delivered synchronously.
 */
function intercept(/** @type {any} */ ev) {
  const q = S.queues.get(ev.key);
  if (S.forcePass > 0 && ev.kind === 'message' && !q) return deliverSync(ev);
  if (S.replay) return S.replay.intercept(ev, q);
  const d = S.strategy.hold(ev);
  if (d < 0 && !q && (!ev.gate || ev.gate())) return deliverSync(ev);
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
function drop(/** @type {object} */ res, /** @type {any} */ key) {
  const q = S.queues.get(key);
  if (!q) return;
  for (const ev of q.slice()) {
    if (ev.res !== res) continue;
    unqueue(ev);
    ev.dropped = true;
    ev.ar.emitDestroy();
  }
  scheduleDrain();
}

/** @param {any} res @param {any} key */
function hasHeld(res, key) {
  const q = S.queues.get(key);
  if (!q) return false;
  for (const ev of q) if (ev.res === res) return true;
  return false;
}

module.exports = {
  S, resInfo, rearm, makeEvent, intercept, hold, pump, scheduleDrain, drop, hasHeld, refChanged, deliverSync, pendingRecords,
  makeSlot, cancelSlot, readyHeads, origSetTimeout, origClearTimeout, now,
};
