// @ts-check
// The executor process. The engine forks it, sends an `init` message, then
// batches of inputs; it runs the target's `fuzz(data)` on each and answers
// with the inputs that brought new coverage and the errors they raised.
// Mutation happens in the parent; this process only executes and observes.
//
// Before each input it pwrite()s (seq, start time, running) to a 24-byte
// status file, so when this process dies (exit, signal, out of memory) or
// hangs, the parent still knows which input did it and since when.
//
// Async errors (a throw in a timer, an unhandled rejection) surface after the
// input that caused them returned. The harness then replays the recent
// inputs in halves, waiting for the event loop after each half, to find the
// one that raises it again ("attribution"); a key attributed 3 times is not
// replayed again, its later hits go to the last input run.
//
// mode "once" (reproduce): run one input, let the event loop settle, write
// the outcome to a result file and exit.
"use strict";
/**
 * The messages of this process's IPC channel, typed once in messages.ts:
 * @typedef {import("../messages").InitMessage} InitMessage
 * @typedef {import("../messages").ParentMessage} ParentMessage
 * @typedef {Extract<ParentMessage, { t: "batch" }>} BatchMessage
 * @typedef {import("../messages").ChildMessage} ChildMessage
 * @typedef {import("../messages").OnceChildMessage} OnceChildMessage
 * @typedef {import("../messages").OnceOutcome} OnceOutcome
 * @typedef {import("../messages").ChildFinding} ChildFinding
 * @typedef {import("../messages").FileShape} FileShape
 * @typedef {ChildFinding["kind"]} ErrorKind
 * @typedef {Omit<ChildFinding, "count">} FindingHit
 */
const fs = require("node:fs");
const { performance } = require("node:perf_hooks");
const { installHook } = require("./instrument.cjs");
const { CoverageTracker } = require("./coverage.cjs");
const { describe, batchKey } = require("./errors.cjs");

const REPLAY_LIMIT_PER_KEY = 3;
const realExit = process.exit.bind(process);

// A target calling process.exit ends the executor: leave its stack on stderr for triage.
process.exit = /** @type {typeof process.exit} */ (
  function exitHook(/** @type {number | string | null | undefined} */ code) {
    const stack = new Error(`target called process.exit(${code ?? ""})`).stack ?? "";
    try {
      fs.writeSync(2, `fuzzfarm: ${stack}\n`);
    } catch {
      // stderr closed: the exit code still tells the parent
    }
    return realExit(code);
  }
);

/** @type {{kind: ErrorKind, error: unknown}[]} */
const asyncErrors = [];
process.on("uncaughtException", (error) => asyncErrors.push({ kind: "uncaught", error }));
process.on("unhandledRejection", (error) => asyncErrors.push({ kind: "rejection", error }));

const status = Buffer.alloc(24);
const statusView = new Float64Array(status.buffer, status.byteOffset, 3);
let statusFd = -1;

/** @param {number} seq @param {number} running */
function writeStatus(seq, running) {
  statusView[0] = seq;
  statusView[1] = Date.now();
  statusView[2] = running;
  fs.writeSync(statusFd, status, 0, 24, 0);
}

/** @param {ChildMessage | OnceChildMessage} msg */
function send(msg) {
  if (process.send) process.send(msg);
}

/**
 * @param {InitMessage} init
 * @returns {{ error: string } | { fuzz: (data: Buffer) => unknown, hook: import("./instrument.cjs").HookState }}
 */
function loadTarget(init) {
  const hook = installHook({ root: init.root, cacheDir: init.cacheDir, instrument: init.instrument });
  let mod;
  try {
    mod = require(init.target);
  } catch (e) {
    return { error: `cannot load target: ${describe(e).message}` };
  }
  const fuzz = mod && (typeof mod.fuzz === "function" ? mod.fuzz : mod.default && mod.default.fuzz);
  if (typeof fuzz !== "function") return { error: "target has no exported function `fuzz(data)`" };
  return { fuzz, hook };
}

/**
 * Views into the packed batch buffer (see packInputs in campaign.ts).
 * @param {Uint8Array} data @param {Uint32Array} ends
 */
function unpack(data, ends) {
  /** @type {Uint8Array[]} */
  const out = new Array(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    out[i] = data.subarray(start, ends[i]);
    start = /** @type {number} */ (ends[i]);
  }
  return out;
}

/** @param {unknown} r @returns {r is PromiseLike<unknown>} */
function isThenable(r) {
  return r !== null && (typeof r === "object" || typeof r === "function") && typeof (/** @type {{ then?: unknown }} */ (r).then) === "function";
}

const settle = () =>
  new Promise((resolve) => setTimeout(resolve, 2)).then(() => new Promise((resolve) => setImmediate(resolve)));

// ---------------------------------------------------------------- fuzz mode

/** @param {InitMessage} init */
function fuzzMode(init) {
  const loaded = loadTarget(init);
  if ("error" in loaded) {
    send({ t: "error", kind: "target-invalid", message: loaded.error });
    return;
  }
  const { fuzz, hook } = loaded;
  const cov = new CoverageTracker(init.root, init.known ?? []);
  let loadedSeen = -1;
  let tokensSent = 0;
  let lastSeq = -1;
  /** @type {{seq: number, data: Uint8Array}[]} */
  let recent = [];
  /** @type {Map<string, number>} */
  const attributed = new Map();

  const newShapes = () => {
    if (hook.loaded === loadedSeen) return [];
    loadedSeen = hook.loaded;
    return cov.scanNewFiles();
  };
  const newTokens = () => {
    const t = hook.tokens.slice(tokensSent);
    tokensSent = hook.tokens.length;
    return t;
  };

  const files = newShapes();
  send({ t: "ready", features: cov.collectNew() ?? [], files, tokens: newTokens() });

  /**
   * Run one input; returns the finding it raised synchronously or by its promise.
   * @param {number} seq @param {Uint8Array} data
   * @returns {Promise<{ kind: ErrorKind, message: string, stack: string } | null>}
   */
  async function runOne(seq, data) {
    writeStatus(seq, 1);
    lastSeq = seq;
    let async = false;
    try {
      const r = fuzz(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      if (isThenable(r)) {
        async = true;
        await r;
      }
      return null;
    } catch (e) {
      return { kind: async ? "rejection" : "uncaught", ...describe(e) };
    }
  }

  /** Does running this group raise an async error again? @param {{seq: number, data: Uint8Array}[]} group */
  async function groupRaises(group) {
    const before = asyncErrors.length;
    for (const x of group) await runOne(x.seq, x.data);
    await settle();
    const raised = asyncErrors.length > before;
    asyncErrors.length = before;
    return raised;
  }

  /** Bisect the recent inputs for the one that raises an async error. @param {{seq: number, data: Uint8Array}[]} cands */
  async function locate(cands) {
    if (cands.length === 0 || !(await groupRaises(cands))) return -1;
    let lo = 0;
    let hi = cands.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (await groupRaises(cands.slice(lo, mid))) hi = mid;
      else lo = mid;
    }
    return (await groupRaises([cands[lo]])) ? cands[lo].seq : -1;
  }

  /** @param {Map<string, ChildFinding>} agg @param {{seq: number, data: Uint8Array}[]} cands */
  async function drainAsyncErrors(agg, cands) {
    while (asyncErrors.length > 0) {
      const { kind, error } = /** @type {{kind: ErrorKind, error: unknown}} */ (asyncErrors.shift());
      const d = describe(error);
      const key = batchKey(kind, d.stack, d.message);
      const tries = attributed.get(key) ?? 0;
      let seq = -1;
      if (tries < REPLAY_LIMIT_PER_KEY) {
        attributed.set(key, tries + 1);
        const pending = asyncErrors.splice(0);
        seq = await locate(cands);
        asyncErrors.push(...pending);
        writeStatus(lastSeq, 0);
      }
      const attribution = seq >= 0 ? "replayed" : "last-input";
      addFinding(agg, { kind, ...d, seq: seq >= 0 ? seq : lastSeq, async: true, attribution });
    }
  }

  /** @param {Map<string, ChildFinding>} agg @param {FindingHit} f */
  function addFinding(agg, f) {
    const key = batchKey(f.kind, f.stack, f.message);
    const prev = agg.get(key);
    if (prev) prev.count++;
    else agg.set(key, { ...f, count: 1 });
  }

  /** @param {BatchMessage} b */
  async function runBatch(b) {
    /** @type {Map<string, ChildFinding>} */
    const agg = new Map();
    /** @type {FileShape[]} */
    let files = [];
    /** @type {{seq: number, f: string[], us: number}[]} */
    const newCov = [];
    const inputs = unpack(b.data, b.ends);
    const started = performance.now();
    for (let i = 0; i < inputs.length; i++) {
      const seq = b.base + i;
      const t0 = performance.now();
      const finding = await runOne(seq, inputs[i]);
      const us = Math.round((performance.now() - t0) * 1000);
      if (finding) addFinding(agg, { ...finding, seq });
      if (hook.loaded !== loadedSeen) files = files.concat(newShapes());
      const f = cov.collectNew();
      if (f) newCov.push({ seq, f, us });
    }
    writeStatus(lastSeq, 0);
    const ms = performance.now() - started;
    // Async errors seen now may come from this batch or the one before it.
    const current = inputs.map((data, i) => ({ seq: b.base + i, data }));
    const cands = recent.concat(current);
    recent = current;
    if (asyncErrors.length > 0) await drainAsyncErrors(agg, cands);
    const loose = cov.collectNew() ?? [];
    send({
      t: "done",
      id: b.id,
      execs: inputs.length,
      ms,
      newCov,
      loose,
      findings: [...agg.values()],
      files,
      tokens: newTokens(),
      counts: b.snap ? cov.counts() : undefined,
    });
  }

  /** @type {ParentMessage[]} */
  const queue = [];
  let scheduled = false;
  const drain = async () => {
    const msg = /** @type {ParentMessage} */ (queue.shift());
    if (msg.t === "batch") await runBatch(msg);
    else if (msg.t === "finish") {
      await settle();
      /** @type {Map<string, ChildFinding>} */
      const agg = new Map();
      if (asyncErrors.length > 0) await drainAsyncErrors(agg, recent);
      sendThen({ t: "final", findings: [...agg.values()], loose: cov.collectNew() ?? [], counts: cov.counts() }, () => realExit(0));
      return;
    }
    if (queue.length > 0) setImmediate(drain);
    else scheduled = false;
  };
  process.on("message", (/** @type {ParentMessage} */ msg) => {
    queue.push(msg);
    if (!scheduled) {
      scheduled = true;
      // setImmediate: one event-loop turn between batches lets timers of the
      // previous batch fire here, close to the inputs that set them.
      setImmediate(drain);
    }
  });
}

/** @param {ChildMessage | OnceChildMessage} msg @param {() => void} [cb] */
function sendThen(msg, cb) {
  if (process.send) process.send(msg, undefined, {}, cb);
}

// ---------------------------------------------------------------- once mode

/** @param {InitMessage} init */
function onceMode(init) {
  const loaded = loadTarget(init);
  if ("error" in loaded) {
    send({ t: "error", kind: "target-invalid", message: loaded.error });
    return;
  }
  const { fuzz } = loaded;
  let written = false;
  /** @param {OnceOutcome} outcome */
  const finish = (outcome) => {
    if (written) return;
    written = true;
    fs.writeFileSync(/** @type {string} */ (init.resultPath), JSON.stringify(outcome));
    realExit(0);
  };
  const crash = (/** @type {ErrorKind} */ kind, /** @type {unknown} */ e) => finish({ kind: "crash", crashKind: kind, ...describe(e) });
  process.removeAllListeners("uncaughtException");
  process.removeAllListeners("unhandledRejection");
  process.on("uncaughtException", (e) => crash("uncaught", e));
  process.on("unhandledRejection", (e) => crash("rejection", e));
  sendThen({ t: "ready" }, () => {
    process.channel?.unref();
    writeStatus(0, 1);
    const input = /** @type {Uint8Array} */ (init.input);
    const settled = () => {
      writeStatus(0, 0);
      // Wait for the event loop to empty (beforeExit) or settleMs, whichever first.
      setTimeout(() => finish({ kind: "ok" }), init.settleMs).unref();
      process.on("beforeExit", () => finish({ kind: "ok" }));
    };
    let r;
    try {
      r = fuzz(Buffer.from(input.buffer, input.byteOffset, input.byteLength));
    } catch (e) {
      crash("uncaught", e);
      return;
    }
    if (isThenable(r)) Promise.resolve(r).then(settled, (e) => crash("rejection", e));
    else settled();
  });
}

process.once("message", (/** @type {InitMessage} */ init) => {
  statusFd = fs.openSync(init.statusPath, "r+");
  if (init.mode === "once") onceMode(init);
  else fuzzMode(init);
});
