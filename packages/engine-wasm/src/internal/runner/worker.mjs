// @ts-check
// One pool thread. It instantiates the module under test on the shared memory
// and, per run, executes one thread of the program when its mailbox says so.
// Between programs it returns to its event loop to receive the next module.
import { parentPort, workerData } from "node:worker_threads";
import * as C from "./ctl.mjs";

import { makeScheduler, AbortRun } from "./sched.mjs";
import { xorshift32 } from "./xorshift32.mjs";

/**
 * The child's messages to this thread and the WebAssembly parts used, typed in messages.ts:
 * @typedef {import("./messages").PoolRequest} PoolRequest
 * @typedef {import("./messages").PoolReply} PoolReply
 * @typedef {import("./messages").PoolWorkerData} PoolWorkerData
 * @typedef {import("./messages").WasmApi} WasmApi
 * @typedef {import("./messages").WasmMemory} WasmMemory
 * @typedef {import("./messages").WasmInstance} WasmInstance
 */

// The repo's TypeScript lib has no WebAssembly namespace: messages.ts declares the parts used.
const WA = /** @type {typeof globalThis & { WebAssembly: WasmApi }} */ (globalThis).WebAssembly;

const data = /** @type {PoolWorkerData} */ (workerData);
const me = data.index;
const ctl = new Int32Array(data.ctl);
const errBytes = new Uint8Array(data.err);
/** @type {WasmMemory} */ let memory;
/** @type {Int32Array} */ let mem32;
/** @type {WasmInstance["exports"]} */ let exportsObj;
/** @type {PoolRequest["meta"]} */ let meta;
/** @type {ReturnType<typeof makeScheduler>} */ let sched;
let rng = 1;
let sink = 0;

const rand = () => { rng = xorshift32(rng); return rng >>> 0; };
const mode = () => ctl[C.MODE];

function perturb() {
  const r = rand() % 1000;
  if (r < ctl[C.SPIN_PM]) { const k = rand() % (ctl[C.MAX_SPIN] + 1); for (let i = 0; i < k; i++) sink = (sink + i) | 0; }
  else if (r < ctl[C.SPIN_PM] + ctl[C.SLEEP_PM]) Atomics.wait(ctl, C.SLEEP_WORD, 0, (rand() % (ctl[C.MAX_SLEEP_US] + 1)) / 1000);
}

const imports = {
  ff: {
    yield(/** @type {number} */ site) {
      ctl[C.TB(me) + C.T_SITE] = site;
      ctl[C.TB(me) + C.T_LADDR] = -1;
      ctl[C.TB(me) + C.T_PADDR] = -1;
      ctl[C.TB(me) + C.T_YIELDS]++;
      if (mode() === C.MODE_FREE) perturb(); else sched.yieldPoint(me);
    },
    yield_mem(/** @type {number} */ addr, /** @type {number} */ siteKind) {
      const b = C.TB(me);
      ctl[b + C.T_SITE] = siteKind >>> 2;
      ctl[b + C.T_LADDR] = ctl[b + C.T_PADDR];
      ctl[b + C.T_LKIND] = ctl[b + C.T_PKIND];
      ctl[b + C.T_PADDR] = addr;
      ctl[b + C.T_PKIND] = siteKind & 3;
      ctl[b + C.T_YIELDS]++;
      if (mode() === C.MODE_FREE) perturb(); else sched.yieldPoint(me);
    },
    yield_wait(/** @type {number} */ addr, /** @type {number} */ exp) {
      if (mode() === C.MODE_FREE) {
        const b = C.TB(me);
        ctl[b + C.T_ADDR] = addr; ctl[b + C.T_EXP] = exp;
        Atomics.store(ctl, b + C.T_STATE, C.S_BLOCKED);
        perturb();
      } else sched.preWait(me, addr, exp);
    },
    yield_post() {
      if (mode() === C.MODE_FREE) Atomics.store(ctl, C.TB(me) + C.T_STATE, C.S_RUNNING);
      else sched.postWait(me);
    },
    spawn(/** @type {number} */ t) {
      Atomics.store(ctl, C.TB(t) + C.T_STATE, C.S_RUNNING);
      Atomics.add(ctl, C.CHANGE, 1);
      Atomics.store(ctl, C.TB(t) + C.T_MAILBOX, C.CMD_RUN);
      Atomics.notify(ctl, C.TB(t) + C.T_MAILBOX);
    },
  },
};

function writeError(/** @type {string} */ msg) {
  const enc = new TextEncoder().encode(msg.slice(0, 900));
  errBytes.set(enc.subarray(0, errBytes.length - 4), 4);
  new Int32Array(errBytes.buffer, 0, 1)[0] = Math.min(enc.length, errBytes.length - 4);
}

function enterFree() {
  if (ctl[C.BARRIER]) {
    Atomics.add(ctl, C.ARRIVED, 1);
    while (Atomics.load(ctl, C.ARRIVED) < ctl[C.N_INITIAL]) sink++;
    return;
  }
  const maxD = ctl[C.START_DELAY_US];
  if (maxD > 0) {
    const d = rand() % (maxD + 1);
    if (rand() & 1) Atomics.wait(ctl, C.SLEEP_WORD, 0, d / 1000);
    else { const end = performance.now() + d / 1000; while (performance.now() < end) sink++; }
  }
}

function runThread() {
  rng = (ctl[C.FREE_SEED] ^ Math.imul(me + 1, 0x9e3779b1)) | 1;
  let failed = false;
  try {
    ctl[C.TB(me) + C.T_PADDR] = -1;
    if (mode() === C.MODE_FREE) enterFree(); else sched.enter(me);
    const res = /** @type {(...args: unknown[]) => unknown} */ (exportsObj[meta.kind === "gen" ? `th${me}` : `t${me}`])();
    if (meta.kind === "litmus") {
      const vals = res === undefined ? [] : Array.isArray(res) ? res : [res];
      const base = C.RESULTS + me * 16;
      ctl[base] = Math.min(vals.length, C.MAX_RESULTS);
      for (let i = 0; i < ctl[base]; i++) ctl[base + 1 + i] = Number(vals[i]) | 0;
    }
    if (mode() === C.MODE_FREE) Atomics.store(ctl, C.TB(me) + C.T_STATE, C.S_DONE); else sched.finish(me);
  } catch (e) {
    failed = true;
    if (!(e instanceof AbortRun)) {
      writeError(`thread ${me}: ${e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)}`);
      if (Atomics.compareExchange(ctl, C.ERROR, 0, C.ERR_TRAP) === 0) Atomics.store(ctl, C.ERROR_THREAD, me);
      Atomics.store(ctl, C.END, 1);
      Atomics.notify(ctl, C.END);
    }
  }
  if (!failed && Atomics.add(ctl, C.DONE_COUNT, 1) + 1 === ctl[C.NTHREADS]) {
    Atomics.store(ctl, C.END, 1);
    Atomics.notify(ctl, C.END);
  }
}

function idleLoop() {
  const mb = C.TB(me) + C.T_MAILBOX;
  for (;;) {
    Atomics.store(ctl, C.TB(me) + C.T_IDLE, 1);
    Atomics.add(ctl, C.IDLE_COUNT, 1);
    Atomics.notify(ctl, C.IDLE_COUNT);
    Atomics.wait(ctl, mb, 0);
    Atomics.sub(ctl, C.IDLE_COUNT, 1);
    Atomics.store(ctl, C.TB(me) + C.T_IDLE, 0);
    const cmd = Atomics.exchange(ctl, mb, 0);
    if (cmd === C.CMD_RELOAD) return;
    if (cmd === C.CMD_RUN) runThread();
  }
}

/** @param {PoolReply} reply */
const reply = (reply) => parentPort?.postMessage(reply);

parentPort?.on("message", (/** @type {PoolRequest} */ m) => {
  if (m.type === "load") {
    memory = m.memory;
    mem32 = new Int32Array(memory.buffer);
    meta = m.meta;
    sched = makeScheduler(ctl, mem32);
    try {
      const inst = new WA.Instance(m.module, { env: { memory }, ...imports });
      exportsObj = inst.exports;
      reply({ type: "loaded", index: me });
    } catch (e) {
      reply({ type: "loaded", index: me, error: e instanceof Error ? e.message : String(e) });
      return;
    }
    setImmediate(idleLoop);
  }
});
