// @ts-check
// The supervised child process: a pool of worker threads sharing one
// WebAssembly.Memory. It loads a module, executes runs (memory and control
// words reset before each), and reports each run's outcome. A stuck run is cut
// by a watchdog and the pool recovers (graceful abort, else fresh workers).
// V8 flags (--liftoff-only / --no-liftoff) are given on this process's command
// line by the supervisor, so one child is one engine configuration.
import { Worker } from "node:worker_threads";
import * as C from "./ctl.mjs";
import { connect } from "./transport.mjs";

/**
 * The runner protocol and the WebAssembly parts used, typed in messages.ts:
 * @typedef {import("./messages").RunnerRequest} RunnerRequest
 * @typedef {import("./messages").RunnerReply} RunnerReply
 * @typedef {import("./messages").RunSpec} RunSpec
 * @typedef {import("./messages").RunResult} RunResult
 * @typedef {import("./messages").RunError} RunError
 * @typedef {import("./messages").ModuleMeta} ModuleMeta
 * @typedef {import("./messages").PoolRequest} PoolRequest
 * @typedef {import("./messages").PoolReply} PoolReply
 * @typedef {import("./messages").WasmApi} WasmApi
 * @typedef {import("./messages").WasmModule} WasmModule
 * @typedef {import("./messages").WasmMemory} WasmMemory
 * @typedef {import("./messages").WasmInstance} WasmInstance
 * @typedef {import("./messages").WaitAsync} WaitAsync
 */

// The repo's TypeScript lib has no WebAssembly namespace nor Atomics.waitAsync: messages.ts declares the parts used.
const WA = /** @type {typeof globalThis & { WebAssembly: WasmApi }} */ (globalThis).WebAssembly;
const waitAsync = /** @type {Atomics & { waitAsync: WaitAsync }} */ (Atomics).waitAsync;

/** Reply to the supervisor (IPC under Node, JSON lines elsewhere: transport.mjs). */
let send = (/** @type {RunnerReply} */ _m) => {};
const ctlSab = new SharedArrayBuffer(C.CTL_INTS * 4);
const ctl = new Int32Array(ctlSab);
const errSab = new SharedArrayBuffer(1024);
/** @type {Worker[]} */ let workers = [];
// The module of the runs, set by the first "load" (the supervisor loads before it runs).
/** @type {WasmModule | null} */ let module = null;
/** @type {WasmMemory} */ let memory = /** @type {WasmMemory} */ (/** @type {unknown} */ (null));
/** @type {ModuleMeta} */ let meta = /** @type {ModuleMeta} */ (/** @type {unknown} */ (null));
/** @type {WasmInstance["exports"]} */ let mainExports = {};

function newWorker(/** @type {number} */ index) {
  const w = new Worker(new URL("./worker.mjs", import.meta.url), { workerData: { index, ctl: ctlSab, err: errSab } });
  w.on("error", (e) => send({ type: "log", message: `worker ${index} error: ${e.message}` }));
  return w;
}

/** @param {Worker} w @param {number} i */
function loadInto(w, i) {
  return new Promise((resolve, reject) => {
    const on = (/** @type {PoolReply} */ m) => {
      if (m.type !== "loaded" || m.index !== i) return;
      w.off("message", on);
      if (m.error) reject(new Error(m.error)); else resolve(undefined);
    };
    w.on("message", on);
    /** @type {PoolRequest} */
    const req = { type: "load", module: /** @type {WasmModule} */ (module), memory, meta: { kind: meta.kind } };
    w.postMessage(req);
  });
}

async function waitIdle(/** @type {number} */ n, /** @type {number} */ ms) {
  const end = performance.now() + ms;
  while (Atomics.load(ctl, C.IDLE_COUNT) < n) {
    const left = end - performance.now();
    if (left <= 0) return false;
    const v = Atomics.load(ctl, C.IDLE_COUNT);
    const r = waitAsync(ctl, C.IDLE_COUNT, v, Math.min(left, 50));
    if (r.async) await r.value;
  }
  return true;
}

async function loadModule(/** @type {Extract<RunnerRequest, { type: "load" }>} */ msg) {
  meta = msg.meta;
  module = await WA.compile(msg.wasm);
  memory = new WA.Memory({ initial: meta.memory.initial, maximum: meta.memory.maximum, shared: true });
  const noop = () => {};
  mainExports = new WA.Instance(module, { env: { memory }, ff: { yield: noop, yield_mem: noop, yield_wait: noop, yield_post: noop, spawn: noop } }).exports;
  const need = meta.threads;
  // Workers idle in their run loop go back to their event loop to take the new module.
  await waitIdle(workers.length, 500);
  for (let i = 0; i < workers.length; i++) {
    Atomics.store(ctl, C.TB(i) + C.T_MAILBOX, C.CMD_RELOAD);
    Atomics.notify(ctl, C.TB(i) + C.T_MAILBOX);
  }
  while (workers.length < need) workers.push(newWorker(workers.length));
  await Promise.all(workers.map((w, i) => loadInto(w, i)));
  await waitIdle(workers.length, 2000);
}

async function freshPool() {
  const n = workers.length;
  await Promise.all(workers.map((w) => w.terminate()));
  ctl.fill(0);
  workers = [];
  for (let i = 0; i < n; i++) workers.push(newWorker(i));
  await Promise.all(workers.map((w, i) => loadInto(w, i)));
  await waitIdle(workers.length, 2000);
}

/** Stop a stuck or failed run; returns how the pool recovered. */
async function recover() {
  Atomics.store(ctl, C.ABORT, 1);
  Atomics.notify(ctl, C.CHANGE);
  for (let t = 0; t < meta.threads; t++) Atomics.notify(ctl, C.TB(t) + C.T_GO);
  const mem32 = new Int32Array(memory.buffer);
  for (let t = 0; t < meta.threads; t++) {
    const b = C.TB(t);
    if (Atomics.load(ctl, b + C.T_STATE) === C.S_BLOCKED) Atomics.notify(mem32, ctl[b + C.T_ADDR] >>> 2);
  }
  const ok = await waitIdle(workers.length, 100);
  if (!ok) {
    await freshPool();
    return "respawned";
  }
  Atomics.store(ctl, C.ABORT, 0);
  return "aborted";
}

function readError() {
  const n = new Int32Array(errSab, 0, 1)[0];
  return new TextDecoder().decode(new Uint8Array(errSab, 4, n).slice());
}

/** @returns {{ text: string, kind: "lost-wakeup" | "deadlock" | "timeout" }} */
function stateSnapshot() {
  const mem32 = new Int32Array(memory.buffer);
  const names = ["idle", "running", "parked", "blocked", "done"];
  const out = [];
  let satisfied = 0, blocked = 0, running = 0;
  for (let t = 0; t < meta.threads; t++) {
    const b = C.TB(t);
    const s = Atomics.load(ctl, b + C.T_STATE);
    let d = `t${t}:${names[s] ?? s}`;
    if (s === C.S_BLOCKED) {
      blocked++;
      const cur = Atomics.load(mem32, ctl[b + C.T_ADDR] >>> 2);
      if (cur !== ctl[b + C.T_EXP]) satisfied++;
      d += `@${ctl[b + C.T_ADDR]}(expect ${ctl[b + C.T_EXP]}, now ${cur})`;
    }
    if (s === C.S_RUNNING || s === C.S_PARKED) running++;
    d += ` site=${ctl[b + C.T_SITE]}`;
    out.push(d);
  }
  return { text: out.join(" "), kind: satisfied ? "lost-wakeup" : blocked && !running ? "deadlock" : "timeout" };
}

function readOutcome() {
  const buf = memory.buffer;
  if (meta.kind === "gen") {
    const r = /** @type {NonNullable<ModuleMeta["readout"]>} */ (meta.readout);
    const dv = new DataView(buf);
    const root = r.regions[0];
    const parts = [String(dv.getUint32(root + r.det, true)), String(dv.getBigUint64(root + r.rsum, true))];
    for (const c of r.cells) parts.push(String(dv.getBigUint64(c.addr, true) & ((1n << BigInt(c.w)) - 1n)));
    return parts.join(";");
  }
  const th = [];
  for (let t = 0; t < meta.threads; t++) {
    const base = C.RESULTS + t * 16;
    th.push(Array.from(ctl.subarray(base + 1, base + 1 + ctl[base])).join(","));
  }
  let s = th.join(";");
  if (meta.hasFinal) {
    const res = mainExports.final();
    const vals = res === undefined ? [] : Array.isArray(res) ? res : [res];
    s += "|" + vals.map((v) => Number(v) | 0).join(",");
  }
  return s;
}

/** @returns {NonNullable<RunResult["logs"]>} */
function readLogs() {
  const r = /** @type {NonNullable<ModuleMeta["readout"]>} */ (meta.readout);
  const dv = new DataView(memory.buffer);
  const logs = [];
  for (const base of r.regions) {
    const n = Math.min(dv.getInt32(base + r.logn, true), r.maxLog);
    /** @type {[number, bigint][]} */
    const entries = [];
    for (let i = 0; i < n; i++) {
      const a = base + r.log + i * 16;
      entries.push([dv.getInt32(a, true), dv.getBigUint64(a + 8, true)]);
    }
    logs.push(entries);
  }
  return logs;
}

/** Per-thread published det;rsum (gen programs), for explanations. */
function readRegions() {
  const r = /** @type {NonNullable<ModuleMeta["readout"]>} */ (meta.readout);
  const dv = new DataView(memory.buffer);
  return r.regions.map((/** @type {number} */ b) => `${dv.getUint32(b + r.det, true)};${dv.getBigUint64(b + r.rsum, true)}`);
}

function resetRun(/** @type {RunSpec} */ spec) {
  new Uint8Array(memory.buffer).fill(0);
  for (let i = 0; i < 64; i++) if (i !== C.IDLE_COUNT) ctl[i] = 0;
  for (let t = 0; t < meta.threads; t++) {
    const b = C.TB(t);
    for (const k of [C.T_STATE, C.T_ADDR, C.T_EXP, C.T_PRIO, C.T_STUCK, C.T_SITE, C.T_YIELDS, C.T_PKIND, C.T_HELD, C.T_LKIND]) ctl[b + k] = 0;
    ctl[b + C.T_PADDR] = -1;
    ctl[b + C.T_LADDR] = -1;
    ctl[b + C.T_PRIO] = spec.priorities?.[t] ?? 0;
  }
  ctl.fill(0, C.ADDR_TABLE, C.ADDR_TABLE + 2 * C.ADDR_SLOTS);
  ctl[C.MODE] = spec.mode;
  ctl[C.TOKEN] = -1;
  ctl[C.RNG] = (spec.seed | 0) || 1;
  ctl[C.NTHREADS] = meta.threads;
  ctl[C.N_INITIAL] = meta.kind === "gen" ? 1 : meta.threads;
  const replay = spec.replay ?? [];
  ctl[C.REPLAY_LEN] = Math.min(replay.length, C.MAX_REPLAY);
  for (let i = 0; i < ctl[C.REPLAY_LEN]; i++) ctl[C.REPLAY + i] = replay[i];
  const cps = spec.changePoints ?? [];
  ctl[C.PCT_NCP] = Math.min(cps.length, 8);
  for (let i = 0; i < ctl[C.PCT_NCP]; i++) ctl[C.PCT_CP + i] = cps[i];
  ctl[C.SPIN_PM] = spec.spinPM ?? 0;
  ctl[C.SLEEP_PM] = spec.sleepPM ?? 0;
  ctl[C.MAX_SPIN] = spec.maxSpin ?? 0;
  ctl[C.MAX_SLEEP_US] = spec.maxSleepUs ?? 0;
  ctl[C.START_DELAY_US] = spec.startDelayUs ?? 0;
  ctl[C.FREE_SEED] = spec.seed | 0;
  ctl[C.SYSTEMATIC] = spec.wantCands ? 1 : 0;
  ctl[C.RANDOM_TAIL] = spec.randomTail ? 1 : 0;
  ctl[C.SLEEP] = spec.sleep ?? 0;
  ctl[C.FREE_ENTRY] = spec.freeEntry ? 1 : 0;
  if (spec.sleep) (spec.siteWidths ?? []).forEach((/** @type {number} */ w, /** @type {number} */ i) => { if (i < C.MAX_WIDTHS) ctl[C.WIDTHS + i] = w; });
  // Focused race runs take the focus groups in turn; one slot in every n+1 stays unfocused.
  const shared = meta.shared ?? [];
  const slot = spec.focus === undefined || !shared.length ? shared.length : spec.focus % (shared.length + 1);
  ctl[C.FOCUS] = shared[slot]?.[0] ?? -1;
  ctl[C.FOCUS2] = shared[slot]?.[1] ?? -1;
  ctl[C.BARRIER] = spec.barrier ? 1 : 0;
  ctl[C.WAKE_MS] = spec.wakeMs ?? 20;
  ctl[C.LOST_MS] = spec.lostMs ?? 250;
  new Int32Array(errSab, 0, 1)[0] = 0;
}

/** @returns {Promise<RunResult>} */
async function runOne(/** @type {RunSpec} */ spec, /** @type {number} */ timeoutMs, /** @type {boolean} */ wantLogs) {
  const t0 = performance.now();
  resetRun(spec);
  const initial = meta.kind === "gen" ? [0] : spec.startOrder ?? [...Array(meta.threads).keys()];
  for (const t of initial) Atomics.store(ctl, C.TB(t) + C.T_STATE, C.S_RUNNING);
  for (const t of initial) {
    Atomics.store(ctl, C.TB(t) + C.T_MAILBOX, C.CMD_RUN);
    Atomics.notify(ctl, C.TB(t) + C.T_MAILBOX);
  }
  const w = waitAsync(ctl, C.END, 0, timeoutMs);
  const v = w.async ? await w.value : w.value;
  const steps = ctl[C.STEP];
  const decisions = Array.from(ctl.subarray(C.TRACE, C.TRACE + Math.min(steps, C.MAX_TRACE)));
  /** @type {RunResult} */ const res = { outcome: null, decisions, ms: 0 };
  if (spec.wantCands) {
    res.cands = Array.from(ctl.subarray(C.CANDS, C.CANDS + decisions.length));
    res.accs = Array.from(ctl.subarray(C.ACCESS, C.ACCESS + 2 * decisions.length));
  }
  if (v === "timed-out") {
    const snap = stateSnapshot();
    res.error = { kind: snap.kind === "timeout" ? "timeout" : snap.kind, message: `run did not finish in ${timeoutMs} ms`, states: snap.text };
    res.recovery = await recover();
  } else if (ctl[C.ERROR]) {
    const code = ctl[C.ERROR];
    const snap = stateSnapshot();
    /** @type {RunError["kind"]} */
    const kind = code === C.ERR_DEADLOCK ? "deadlock" : code === C.ERR_LOST_WAKEUP ? "lost-wakeup" : "trap";
    res.error = { kind, message: kind === "trap" ? readError() : `${kind} detected by the token scheduler`, states: snap.text, thread: ctl[C.ERROR_THREAD] };
    res.recovery = await recover();
  } else {
    try {
      res.outcome = readOutcome();
      if (wantLogs && meta.kind === "gen") { res.logs = readLogs(); res.regions = readRegions(); }
    } catch (e) {
      res.error = { kind: "trap", message: `final: ${e instanceof Error ? e.message : String(e)}`, states: "" };
    }
  }
  res.ms = performance.now() - t0;
  return res;
}

let queue = Promise.resolve();
send = connect((msg) => {
  queue = queue.then(async () => {
    try {
      if (msg.type === "load") {
        await loadModule(msg);
        send({ type: "loaded", id: msg.id });
      } else if (msg.type === "run") {
        const results = [];
        for (const spec of msg.specs) results.push(await runOne(spec, msg.timeoutMs, !!msg.wantLogs));
        send({ type: "ran", id: msg.id, results });
      } else if (msg.type === "exit") {
        await Promise.all(workers.map((w) => w.terminate()));
        process.exit(0);
      }
    } catch (e) {
      // "exit" has no id: its failure (terminating the threads) answers no request, and the supervisor kills the child anyway.
      if (msg.type !== "exit") send({ type: "failed", id: msg.id, message: e instanceof Error ? e.message : String(e) });
    }
  });
});
send({ type: "ready" });
