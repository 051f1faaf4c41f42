// @ts-check
// Interception points at the binding boundary (see
// /work/shared/notes/node-interception.md, verified on Node 20):
//   AsyncWrap.prototype.{oncomplete,ondone,onexit}  fs, dns, connect, write,
//       shutdown, crypto jobs, child processes, workers
//   Timeout/Immediate ._onTimeout/._onImmediate      timers, immediates
//   TCP/Pipe/TTY onread shadow (+ streamBaseState)   stream reads
//   TCP/Pipe listen -> onconnection                  accepts
//   HandleWrap.prototype.close(cb)                   close callbacks
//   Zlib/Brotli init(..., cb)                        zlib
//   fs binding functions called with kUsePromises   fs.promises
//   MessagePort [kHybridDispatch]                    worker_threads messages
// Each hook turns a completion into an event (scheduler.makeEvent) whose
// `call` replays it exactly, with the shared buffers it read snapshotted.
'use strict';
/**
 * Node internals as hooks.cjs sees them (types.ts):
 * @typedef {import('./types').ProgramTimer} ProgramTimer
 * @typedef {import('./types').NativeHandle} NativeHandle
 * @typedef {import('./types').StreamHandle} StreamHandle
 * @typedef {import('./types').ListenHandle} ListenHandle
 * @typedef {import('./types').NativeRequest} NativeRequest
 * @typedef {import('./types').ResInfo} ResInfo
 * @typedef {import('./types').Bindings} Bindings
 * @typedef {import('./types').BindingProcess} BindingProcess
 * A program timer or immediate with the marks of installTimers: the callback
 * core set (kRaw; null once cleared), armed by core's own code (kInternal),
 * an immediate's ref state (kImmRef):
 * @typedef {{ [kRaw]?: unknown, [kInternal]?: boolean, [kImmRef]?: boolean }} TimerMarks
 * @typedef {ProgramTimer & TimerMarks} HookedTimer
 * @typedef {NodeJS.Immediate & TimerMarks} HookedImmediate
 */
const timers = require('node:timers');
const { S, resInfo, rearm, makeEvent, intercept, drop, hasHeld, refChanged, timerGate } = require('./scheduler.cjs');
const { captureSite } = require('./sites.cjs');
const { MODE } = require('./mode.cjs');
const { bump: bumpHandled } = require('./threads.cjs');

/** @template {keyof Bindings} K @param {K} name @returns {Bindings[K]} */
const binding = (name) => {
  const prev = process.noDeprecation;
  process.noDeprecation = true;
  try { return /** @type {BindingProcess} */ (process).binding(name); } finally { process.noDeprecation = prev; }
};
const always = () => true;
/** @type {string[]} */
const installed = [];

// ---- timers ------------------------------------------------------------------
const kRaw = Symbol('ffRaw');
const kInternal = Symbol('ffInternal');
const kImmRef = Symbol('ffImmRef');
/** @type {Map<number, object>} */
const timerKeys = new Map();
const IMMEDIATE_KEY = { name: 'immediates' };
/** Timers the program has armed and not yet seen fire or cleared (for hang reports). */
const liveTimers = S.liveTimers;

function timerKey(/** @type {ProgramTimer} */ t) {
  let k = timerKeys.get(t._idleTimeout);
  if (!k) { k = { name: `timers:${t._idleTimeout}` }; timerKeys.set(t._idleTimeout, k); }
  return k;
}

function installTimers() {
  const probeT = timers.setTimeout(() => {}, 1);
  timers.clearTimeout(probeT);
  const probeI = timers.setImmediate(() => {});
  timers.clearImmediate(probeI);
  /** @type {HookedTimer} Timeout.prototype */
  const TP = Object.getPrototypeOf(probeT);
  /** @type {HookedImmediate} Immediate.prototype */
  const IP = Object.getPrototypeOf(probeI);

  /** @this {HookedTimer} @param {unknown[]} args */
  function onTimeout(...args) {
    const timer = this;
    if (!MODE.record) {
      S.seq++;
      if (!timer._repeat) liveTimers.delete(timer);
      // the getter hands onTimeout out only over a function
      return Reflect.apply(/** @type {Function} */ (timer[kRaw]), timer, args);
    }
    const ev = makeEvent('timeout', timer, timerKey(timer), () => {
      const fn = timer[kRaw];
      if (!timer._repeat) liveTimers.delete(timer);
      if (typeof fn === 'function') return Reflect.apply(fn, timer, args);
      return undefined;
    }, () => timer.hasRef());
    ev.deadline = timer._idleStart + timer._idleTimeout;
    ev.gate = () => timerGate(ev);
    if (timer._repeat) rearm(timer);
    return intercept(ev);
  }
  Object.defineProperty(TP, '_onTimeout', {
    configurable: true,
    /** @this {HookedTimer} */
    get() { const raw = this[kRaw]; return typeof raw === 'function' && !this[kInternal] ? onTimeout : raw; },
    /** @this {HookedTimer} @param {unknown} v */
    set(v) {
      this[kRaw] = v;
      if (S.internal > 0) { this[kInternal] = true; return; }
      if (this[kInternal]) return;
      if (typeof v === 'function') { if (MODE.record) rearm(this); liveTimers.add(this); }
      else { liveTimers.delete(this); drop(this, timerKey(this)); }
    },
  });
  const { refresh, ref, unref } = TP;
  TP.refresh = function () {
    if (!this[kInternal]) {
      if (hasHeld(this, timerKey(this))) drop(this, timerKey(this));
      if (MODE.record) rearm(this);
      liveTimers.add(this);
    }
    return refresh.call(this);
  };
  TP.ref = function () { const r = ref.call(this); if (!this[kInternal]) refChanged(this, timerKey(this)); return r; };
  TP.unref = function () { const r = unref.call(this); if (!this[kInternal]) refChanged(this, timerKey(this)); return r; };

  /** @this {HookedImmediate} @param {unknown[]} args */
  function onImmediate(...args) {
    // core nulls _onImmediate right after this call: keep the function now
    const imm = this;
    // the getter hands onImmediate out only over a function
    const fn = /** @type {Function} */ (imm[kRaw]);
    if (!MODE.record) { S.seq++; return Reflect.apply(fn, imm, args); }
    const ev = makeEvent('immediate', imm, IMMEDIATE_KEY, () => Reflect.apply(fn, imm, args), () => imm[kImmRef] !== false);
    return intercept(ev);
  }
  Object.defineProperty(IP, '_onImmediate', {
    configurable: true,
    /** @this {HookedImmediate} */
    get() { const raw = this[kRaw]; return typeof raw === 'function' && !this[kInternal] ? onImmediate : raw; },
    /** @this {HookedImmediate} @param {unknown} v */
    set(v) {
      this[kRaw] = v;
      if (S.internal > 0) { this[kInternal] = true; return; }
      if (!this[kInternal] && typeof v === 'function') { this[kImmRef] = true; if (MODE.record) resInfo(this); }
    },
  });
  const iref = IP.ref, iunref = IP.unref;
  // (the casts of `this` only keep the checker from reading these functions as JS constructors)
  IP.ref = function () { /** @type {HookedImmediate} */ (this)[kImmRef] = true; refChanged(this, IMMEDIATE_KEY); return iref.call(this); };
  IP.unref = function () { /** @type {HookedImmediate} */ (this)[kImmRef] = false; refChanged(this, IMMEDIATE_KEY); return iunref.call(this); };
  const origClear = timers.clearImmediate;
  const clearImmediate = function clearImmediate(/** @type {NodeJS.Immediate | undefined} */ imm) {
    if (imm && typeof imm === 'object' && hasHeld(imm, IMMEDIATE_KEY)) drop(imm, IMMEDIATE_KEY);
    return origClear(imm);
  };
  timers.clearImmediate = clearImmediate;
  globalThis.clearImmediate = clearImmediate;
  installed.push('timers', 'immediates');
}

// ---- AsyncWrap completions -----------------------------------------------------
const CRYPTO_JOB = /Job$/;
/** kind and FIFO key of a request-style completion */
function classify(/** @type {NativeRequest} */ obj, /** @type {string} */ name, /** @type {unknown[]} */ args) {
  const c = obj.constructor && obj.constructor.name;
  switch (c) {
    case 'FSReqCallback': return { kind: 'fs', key: obj };
    case 'GetAddrInfoReqWrap': case 'GetNameInfoReqWrap': case 'QueryReqWrap': return { kind: 'dns', key: obj };
    case 'TCPConnectWrap': case 'PipeConnectWrap': return { kind: 'connect', key: /** @type {object | undefined} oncomplete(status, handle, ...) */ (args[1]) || obj };
    case 'WriteWrap': return { kind: 'write', key: obj.handle || obj };
    case 'ShutdownWrap': return { kind: 'shutdown', key: obj.handle || obj };
    case 'Process': return { kind: 'exit', key: obj };
    case 'Worker': return { kind: 'worker.exit', key: obj };
    default: return { kind: CRYPTO_JOB.test(c || '') ? 'crypto' : name === 'ondone' ? 'crypto' : 'req', key: obj };
  }
}

/** Copy what core hands over in arrays it reuses (fs stat results). */
function snapshot(/** @type {unknown[]} */ args) {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a instanceof Float64Array || a instanceof BigInt64Array) args[i] = a.slice();
  }
  return args;
}

/** The stdio pipe handles of the ChildProcess that owns a Process handle. */
function stdioHandles(/** @type {NativeRequest} */ proc) {
  const sym = Object.getOwnPropertySymbols(proc).find((x) => x.description === 'owner_symbol');
  const child = /** @type {{ stdio?: unknown } | null | undefined} its ChildProcess */ (sym ? proc[sym] : null);
  /** @type {object[]} */
  const out = [];
  if (child && Array.isArray(child.stdio)) for (const s of child.stdio) if (s && s._handle) out.push(s._handle);
  return out;
}

/**
 * Requests counted as in flight from the moment their callback is set until
 * core answers them (S.inflight); a child process counts from its spawn until
 * its exit arrives. Stream writes and shutdowns are left out: they may
 * complete synchronously, and then core never calls oncomplete.
 */
const TRACKED_REQUESTS = /^(Process|FSReqCallback|GetAddrInfoReqWrap|GetNameInfoReqWrap|QueryReqWrap|TCPConnectWrap|PipeConnectWrap|\w+Job)$/;

function installAsyncWrap() {
  const fsb = binding('fs');
  const AW = Object.getPrototypeOf(fsb.FSReqCallback.prototype);
  for (const name of ['oncomplete', 'ondone', 'onexit']) {
    const slot = Symbol(`ff.${name}`);
    /** @this {NativeRequest} @param {unknown[]} args */
    const wrapper = function (...args) {
      const obj = this;
      S.inflight.delete(obj);
      // the getter hands the wrapper out only over a function
      if (!MODE.record && S.held === 0) { S.seq++; return Reflect.apply(/** @type {Function} */ (obj[slot]), obj, args); }
      const { kind, key } = classify(obj, name, args);
      snapshot(args);
      const refd = kind === 'exit' ? () => (typeof obj.hasRef === 'function' ? obj.hasRef() : true) : always;
      const res = kind === 'connect' || kind === 'write' || kind === 'shutdown' ? key : obj;
      const ev = makeEvent(kind, res, key, () => {
        const fn = obj[slot];
        if (typeof fn !== 'function') return undefined;
        if (kind !== 'worker.exit') return Reflect.apply(fn, obj, args);
        S.forcePass++;
        try { return Reflect.apply(fn, obj, args); } finally { S.forcePass--; }
      }, refd);
      if (kind === 'worker.exit') ev.gate = () => S.heldMessages === 0;
      // a child's output written before it exited is read in the exit's poll phase at the latest
      if (kind === 'exit') ev.samePhase = () => stdioHandles(obj);
      return intercept(ev);
    };
    Object.defineProperty(AW, name, {
      configurable: true,
      /** @this {NativeRequest} */
      get() { return typeof this[slot] === 'function' ? wrapper : this[slot]; },
      /** @this {NativeRequest} @param {unknown} v */
      set(v) {
        this[slot] = v;
        if (typeof v !== 'function') return;
        if (!this.handle && MODE.record) resInfo(this);
        if (MODE.record && TRACKED_REQUESTS.test((this.constructor && this.constructor.name) || '')) S.inflight.add(this);
      },
    });
  }
  installed.push('fs', 'dns', 'crypto', 'child.exit', 'worker.exit', 'connect', 'write');
  return AW;
}

// ---- streams: reads, accepts, closes, the HTTP server's JS parse path -----------------
const kRawRead = Symbol('ffOnread');
const kStopped = Symbol('ffStopped');
const kClosing = Symbol('ffClosing');

function installStreams() {
  const sw = binding('stream_wrap');
  const sbs = sw.streamBaseState;
  const kNread = sw.kReadBytesOrError, kOffset = sw.kArrayBufferOffset;
  const { TCP } = binding('tcp_wrap');
  const { Pipe } = binding('pipe_wrap');
  const { TTY } = binding('tty_wrap');
  /** @type {StreamHandle} LibuvStreamWrap.prototype */
  const LP = Object.getPrototypeOf(TCP.prototype);
  /** @type {NativeHandle} HandleWrap.prototype */
  const HW = Object.getPrototypeOf(LP);
  const readStart = LP.readStart, readStop = LP.readStop;

  S.stopHandle = (h) => {
    if (h[kStopped] || h.reading === false || h[kClosing]) return;
    h[kStopped] = true;
    try { readStop.call(h); } catch { /* closed */ }
  };
  S.resumeHandle = (h) => {
    if (!h[kStopped] || hasHeldRead(h)) return;
    h[kStopped] = false;
    if (h.reading !== false && !h[kClosing]) { try { readStart.call(h); } catch { /* closed */ } }
  };
  function hasHeldRead(/** @type {StreamHandle} */ h) {
    const q = S.queues.get(h);
    if (q) for (const ev of q) if (ev.kind === 'read') return true;
    return false;
  }

  /** @this {StreamHandle} @param {ArrayBuffer | undefined} arrayBuffer */
  const onread = function (arrayBuffer) {
    const h = this;
    if (!MODE.record && S.held === 0) { S.seq++; const fn = h[kRawRead]; return typeof fn === 'function' ? fn.call(h, arrayBuffer) : undefined; }
    const nread = sbs[kNread], offset = sbs[kOffset];
    if (arrayBuffer === undefined && nread > 0 && !S.queues.has(h)) {
      // onread:{buffer} sockets reuse one user buffer: never hold those
      const fn = h[kRawRead];
      return typeof fn === 'function' ? fn.call(h, arrayBuffer) : undefined;
    }
    const hasPending = 'pendingHandle' in h;
    const pending = hasPending ? h.pendingHandle : undefined;
    const ev = makeEvent('read', h, h, () => {
      const fn = h[kRawRead];
      if (typeof fn !== 'function') return undefined;
      const n0 = sbs[kNread], o0 = sbs[kOffset];
      sbs[kNread] = nread; sbs[kOffset] = offset;
      if (hasPending) h.pendingHandle = pending;
      try { return fn.call(h, arrayBuffer); } finally { sbs[kNread] = n0; sbs[kOffset] = o0; }
    }, () => h.hasRef());
    const r = intercept(ev);
    if (ev.held && hasPending) h.pendingHandle = null;
    return r;
  };
  for (const P of [TCP.prototype, Pipe.prototype, TTY.prototype]) {
    Object.defineProperty(P, 'onread', {
      configurable: true,
      /** @this {StreamHandle} */
      get() { return this[kRawRead]; },
      /** @this {StreamHandle} @param {unknown} v */
      set(v) {
        this[kRawRead] = v;
        if (typeof v === 'function' && MODE.record) resInfo(this);
        Reflect.set(LP, 'onread', typeof v === 'function' ? onread : v, this);
      },
    });
  }
  // llhttp's consume() reads in C++ and bypasses onread: make the server use
  // its JS path (pass-through mode keeps consume(): nothing is held there)
  const kConsumed = Symbol('ffConsumed');
  Object.defineProperty(LP, '_consumed', {
    configurable: true,
    /** @this {StreamHandle} */
    get() { return MODE.record ? true : this[kConsumed] === true; },
    /** @this {StreamHandle} @param {unknown} v */
    set(v) { this[kConsumed] = v; },
  });

  // server.listen() with a host defers the handle's listen() to a lookup or a
  // nextTick, where no user frame is left: take the site at the public call.
  const kSite = Symbol('ffSite');
  const NSP = require('node:net').Server.prototype;
  const publicListen = NSP.listen;
  NSP.listen = function (/** @type {unknown[]} */ ...args) {
    if (!this[kSite]) this[kSite] = captureSite(S.root);
    return publicListen.apply(this, args);
  };
  /** @type {symbol | undefined} */
  let ownerSymbol;
  /** @returns {{ [kSite]?: { site: string, api: string } | null } | undefined} the net.Server that owns the handle */
  const ownerOf = (/** @type {ListenHandle} */ h) => {
    if (!ownerSymbol) ownerSymbol = Object.getOwnPropertySymbols(h).find((s) => s.description === 'owner_symbol');
    return ownerSymbol ? /** @type {{ [kSite]?: { site: string, api: string } | null }} */ (h[ownerSymbol]) : undefined;
  };
  for (const P of [TCP.prototype, Pipe.prototype]) {
    const listen = P.listen;
    P.listen = function (/** @type {unknown[]} */ ...args) {
      const server = this;
      const owner = ownerOf(server);
      resInfo(server, owner && owner[kSite]);
      const oc = server.onconnection;
      if (typeof oc === 'function') {
        server.onconnection = function (/** @type {unknown[]} */ ...a) {
          return intercept(makeEvent('accept', server, server, () => oc.apply(server, a), () => server.hasRef()));
        };
      }
      return listen.apply(this, args);
    };
  }

  const close = HW.close, ref = HW.ref, unref = HW.unref;
  HW.close = function (/** @type {unknown} */ cb) {
    const h = this;
    h[kClosing] = true;
    if (typeof cb !== 'function') return close.call(h, cb);
    resInfo(h);
    return close.call(h, function () {
      return intercept(makeEvent('close', h, h, () => cb.apply(h, arguments), always));
    });
  };
  HW.ref = function () { const r = ref.call(this); refChanged(this, this); return r; };
  HW.unref = function () { const r = unref.call(this); refChanged(this, this); return r; };
  installed.push('read', 'accept', 'close');
}

// ---- zlib ------------------------------------------------------------------------
function installZlib() {
  const z = binding('zlib');
  for (const C of [z.Zlib, z.BrotliEncoder, z.BrotliDecoder]) {
    if (!C) continue;
    const init = C.prototype.init;
    C.prototype.init = function (/** @type {unknown[]} */ ...args) {
      const h = this;
      for (let i = 0; i < args.length; i++) {
        const cb = args[i];
        if (typeof cb !== 'function') continue;
        resInfo(h);
        args[i] = function () { S.inflight.delete(h); return intercept(makeEvent('zlib', h, h, () => cb.call(h), always)); };
      }
      return init.apply(this, args);
    };
    // an async write is in flight until its callback (set by init) runs
    const write = C.prototype.write;
    C.prototype.write = function (/** @type {unknown[]} */ ...args) {
      if (MODE.record) S.inflight.add(this);
      return write.apply(this, args);
    };
  }
  installed.push('zlib');
}

// ---- fs.promises -----------------------------------------------------------------
function installFsPromises() {
  const fsb = binding('fs');
  const kUsePromises = fsb.kUsePromises;
  /** @param {Promise<unknown>} p */
  function holdPromise(p) {
    if (!MODE.record) return p;
    const res = {};
    resInfo(res);
    S.inflight.add(res);
    return new Promise((resolve, reject) => {
      p.then(
        (v) => { S.inflight.delete(res); return intercept(makeEvent('fs.promise', res, res, () => resolve(v), always)); },
        (e) => { S.inflight.delete(res); return intercept(makeEvent('fs.promise', res, res, () => reject(e), always)); },
      );
    });
  }
  for (const name of Object.keys(fsb)) {
    const f = fsb[name];
    if (typeof f !== 'function' || /^[A-Z]/.test(name)) continue;
    /** @this {unknown} */
    fsb[name] = function (/** @type {unknown[]} */ ...args) {
      if (args.length && args[args.length - 1] === kUsePromises) return holdPromise(f.apply(this, args));
      return f.apply(this, args);
    };
  }
  const FHP = fsb.FileHandle && fsb.FileHandle.prototype;
  if (FHP && typeof FHP.close === 'function') {
    const close = FHP.close;
    FHP.close = function () { return holdPromise(close.call(this)); };
  }
  installed.push('fs.promises');
}

// ---- worker_threads --------------------------------------------------------------
function installMessagePorts() {
  const wt = require('node:worker_threads');
  const kDispatch = Symbol.for('nodejs.internal.kHybridDispatch');
  const kPorts = Symbol.for('nodejs.internal.kCurrentlyReceivingPorts');
  const kThreadHandled = Symbol.for('fuzzfarm.threadHandled');
  const MPP = wt.MessagePort.prototype;
  /** @type {Record<symbol, unknown> | null} MessagePort.prototype and its prototypes */
  let p = /** @type {typeof MPP & Record<symbol, unknown>} */ (MPP);
  while (p && !Object.getOwnPropertyDescriptor(p, kDispatch)) p = Object.getPrototypeOf(p);
  if (!p) throw new Error('MessagePort hybrid dispatch not found');
  const dispatch = /** @type {Function} core's dispatch */ (p[kDispatch]);
  Object.defineProperty(MPP, kDispatch, {
    configurable: true, writable: true, enumerable: false,
    /** @this {Record<symbol, unknown>} a MessagePort @param {unknown[]} args */
    value: function (...args) {
      const port = this;
      const ports = port[kPorts];
      const ev = makeEvent('message', port, port, () => {
        const prev = port[kPorts];
        port[kPorts] = ports;
        try { return dispatch.apply(port, args); } finally {
          port[kPorts] = prev;
          // a slow worker thread may wait for its parent to have handled this (threads.cjs)
          if (port[kThreadHandled]) bumpHandled(/** @type {Int32Array} */ (port[kThreadHandled]));
        }
      }, always); // received already: a closing or unref'd port still delivers it
      return intercept(ev);
    },
  });
  // Name ports by where the program created them, not by when they first spoke.
  const MC = wt.MessageChannel;
  class MessageChannel extends MC {
    constructor() { super(); const base = resInfo(this); resInfoAlias(this.port1, base, 1); resInfoAlias(this.port2, base, 2); }
  }
  const W = wt.Worker;
  class Worker extends W {
    constructor(/** @type {ConstructorParameters<typeof W>} */ ...args) {
      super(...args);
      const base = resInfo(this);
      let i = 0;
      for (const s of Object.getOwnPropertySymbols(this)) {
        const v = /** @type {Worker & Record<symbol, unknown>} */ (this)[s];
        if (v && typeof v === 'object' && v.constructor && v.constructor.name === 'MessagePort') resInfoAlias(v, base, ++i);
      }
    }
  }
  wt.MessageChannel = MessageChannel;
  wt.Worker = Worker;
  if (globalThis.MessageChannel === MC) globalThis.MessageChannel = MessageChannel;
  installed.push('message');
}
/** Register `port` under the site and ordinal of its creator (a channel or a Worker). */
function resInfoAlias(/** @type {object} */ port, /** @type {ResInfo} */ base, /** @type {number} */ i) {
  const r = resInfo(port, base);
  r.ord = base.ord * 10 + i;
}

function installAll() {
  installTimers();
  installAsyncWrap();
  installStreams();
  installZlib();
  installFsPromises();
  installMessagePorts();
  try { require('node:module').syncBuiltinESMExports(); } catch { /* older Node */ }
  return installed;
}

module.exports = { installAll, liveTimers, installed, kRaw };
