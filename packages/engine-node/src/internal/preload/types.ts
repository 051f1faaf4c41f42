// The preload's own records, typed once for its plain-JavaScript files
// (scheduler.cjs, hooks.cjs, strategies.cjs, horizons.cjs, replay.cjs,
// guided.cjs, pending.cjs import them through JSDoc `@typedef {import('./types')...}`).
// Type-only: nothing here runs, and the build copies only the .cjs files
// next to it. What crosses the process boundary (the config, the trace) is
// in ../preload-messages.ts and ../trace.ts.
import type { AsyncResource } from "node:async_hooks";

/** Where a completion's callback was registered (scheduler.cjs resInfo): one record per resource. */
export interface ResInfo {
  /** `relfile:line:col` of the user frame, or the site of the event being delivered, or `internal`. */
  site: string;
  /** The core API the program called there, e.g. `fs.readFile`. */
  api: string;
  /** Per-site ordinal of the resource (ports: their creator's ordinal * 10 + port number). */
  ord: number;
  /** Logical time of its last (re-)arming. */
  reg: number;
  /** async id of the execution that issued it. */
  regAsync: number;
  /** When it was last armed (performance.now() ms); undefined until then. */
  armedAt: number | undefined;
  /** async id of the execution that last armed it (-1: never). */
  armAsync: number;
  /** Events so far per kind (the last part of an event id). */
  n: Record<string, number>;
}

/** A program timer as Node's timers module keeps it: the internal fields the scheduler reads. */
export type ProgramTimer = NodeJS.Timeout & {
  /** Loop time (ms) the timer was armed at. */
  _idleStart: number;
  /** Its duration (ms). */
  _idleTimeout: number;
  /** Cleared, or a one-shot that has run. */
  _destroyed?: boolean;
  /** An interval's period; null for a one-shot. */
  _repeat?: number | null;
};

/**
 * A libuv handle as core's HandleWrap.prototype gives it (TCP, Pipe, TTY,
 * Process, ...): what hooks.cjs wraps. It marks handles with its own symbols,
 * and reads core's (owner_symbol: the JS object that owns the handle).
 */
export interface NativeHandle {
  close(cb?: unknown): unknown;
  ref(): unknown;
  unref(): unknown;
  hasRef(): boolean;
  [mark: symbol]: unknown;
}

/** A libuv stream handle (LibuvStreamWrap: TCP, Pipe, TTY wrap): hooks.cjs marks its read state with its own symbols. */
export interface StreamHandle extends NativeHandle {
  /** Set false by core when the stream stopped reading. */
  reading?: boolean;
  readStart(): number;
  readStop(): number;
  /** Core's read callback: the bytes are in streamBaseState (nread, offset) and `arrayBuffer`. */
  onread: unknown;
  /** A handle received over an IPC pipe with this read. */
  pendingHandle?: unknown;
}

/** A TCP or Pipe handle that can listen: core sets onconnection before listen(). */
export interface ListenHandle extends StreamHandle {
  listen(...args: unknown[]): number;
  onconnection: ((...args: unknown[]) => unknown) | null;
}

/**
 * A request (AsyncWrap: FSReqCallback, GetAddrInfoReqWrap, TCPConnectWrap,
 * WriteWrap, crypto jobs...), a Process or a Worker handle: core sets its
 * oncomplete / ondone / onexit, which hooks.cjs keeps under its own symbols.
 */
export interface NativeRequest {
  /** Stream requests (write, shutdown): the stream handle they belong to. */
  handle?: object;
  /** Process handles. */
  hasRef?(): boolean;
  [mark: symbol]: unknown;
}

/** A zlib or brotli handle: init(...) takes the write callback, write(...) starts an async write. */
export interface ZlibHandle {
  init(...args: unknown[]): unknown;
  write(...args: unknown[]): unknown;
}

/** The internal bindings (process.binding) that hooks.cjs wraps: only what it reads or replaces. */
export interface Bindings {
  fs: {
    FSReqCallback: { prototype: object };
    /** Passed as the last argument of a binding function: answer with a promise. */
    kUsePromises: symbol;
    FileHandle?: { prototype: { close(): Promise<unknown> } };
    /** The binding functions (fs.open, fs.read, ...), replaced one by one. */
    [name: string]: unknown;
  };
  stream_wrap: {
    /** Shared with C++: a read's byte count and buffer offset at these indices. */
    streamBaseState: Int32Array;
    kReadBytesOrError: number;
    kArrayBufferOffset: number;
  };
  tcp_wrap: { TCP: { prototype: ListenHandle } };
  pipe_wrap: { Pipe: { prototype: ListenHandle } };
  tty_wrap: { TTY: { prototype: StreamHandle } };
  zlib: { Zlib?: { prototype: ZlibHandle }; BrotliEncoder?: { prototype: ZlibHandle }; BrotliDecoder?: { prototype: ZlibHandle } };
}

/** Node's process with the deprecated process.binding, typed for the bindings the preload uses. */
export type BindingProcess = NodeJS.Process & { binding<K extends keyof Bindings>(name: K): Bindings[K] };

/** A release slot: an immediate (delay 0, ref'd) or a timer of the scheduler's own. */
export interface Slot {
  imm?: NodeJS.Immediate;
  t?: NodeJS.Timeout;
  fn: () => void;
}

/** A recorded event as a replay looks it up by id (replay.cjs). */
export interface ReplayRecord {
  seq: number;
  held: boolean;
  /** ms since the recording's start, at delivery. */
  t: number;
  /** Ran in the same timers phase as the timer recorded before it. */
  tp: boolean;
}

/**
 * One completion that arrived from core (scheduler.cjs makeEvent): delivered
 * at once or held in its key's FIFO. The fields after `triggerId` are the
 * scheduler's and the strategy's working state.
 */
export interface SchedEvent {
  /** `kind@site#ord.n`: stable across runs (the trace's and the replay's name). */
  id: string;
  /** timeout, immediate, fs, fs.promise, dns, crypto, zlib, connect, write, shutdown, read, accept, close, exit, worker.exit, message. */
  kind: string;
  site: string;
  api: string;
  info: ResInfo;
  /** The resource it belongs to (timer, immediate, request, handle, port). */
  res: object;
  /** Its FIFO: events of one key are delivered in arrival order. */
  key: object;
  /** Runs the callback exactly as core would have. */
  call: () => unknown;
  /** Whether its source keeps the loop alive (its slot is ref'd iff it is). */
  refd: () => boolean;
  reg: number;
  arr: number;
  asyncId: number;
  triggerId: number;
  /** Timers: loop time it was due at. */
  deadline: number;
  /** Held until this many other events ran (the strategy sets it), then `until` is the delivered count to reach. */
  waitFor: number;
  until: number;
  held: boolean;
  /** The hold the strategy gave (ms; 0: next check phase; -1: none). */
  delay: number;
  ripe: boolean;
  ripeAt: number;
  /** pct: its site's priority. */
  prio: number;
  /** Held: the async context it is released in. */
  ar: AsyncResource | null;
  slot: Slot | null;
  /** May it run now (timers: deadline order; worker exits: after the worker's messages)? */
  gate: (() => boolean) | null;
  /** Replay: its record in the recording, or null when the recording did not see it. */
  rec: ReplayRecord | null;
  dropped: boolean;
  /** Held until the program is otherwise quiet. */
  last: boolean;
  /** late, oldest first: answered after all the others. */
  straggler: boolean;
  notBefore: number;
  eligibleAt: number;
  /** late: the program timer it waits to have run, and that timer's _idleStart when chosen. */
  afterTimer: ProgramTimer | null;
  afterStart: number;
  /** Child exits: the stdio handles whose earlier-arrived reads run in this event's poll phase. */
  samePhase: (() => object[]) | null;
  /** Arrival poll phase (reads and child exits; -1 otherwise). */
  ap: number;
}

/** A perturbation strategy as the scheduler asks it (strategies.cjs makeStrategy, guided.cjs). */
export interface Strategy {
  name: string;
  params: Record<string, number>;
  /** -1: deliver now; 0: hold until the next check phase; n > 0: hold n ms. */
  hold(ev: SchedEvent): number;
  /** Which of the ready heads to deliver. */
  pick(heads: SchedEvent[]): number;
  /** A held timer's release also runs every other fired timer. */
  lateLoop?(ev: SchedEvent): boolean;
  /** Told after each delivery. */
  delivered?(ev: SchedEvent): void;
  /** Quiet-held completions newest first. */
  lifo?: boolean;
  /** How worker threads stall after their posts (threads.cjs). */
  threads?: { stallProb: number; stallSteps: number; stallMs: number; stalls: number };
}

/** The replay as the scheduler asks it (replay.cjs installReplay). */
export interface Replayer {
  /** Recorded events that never came and were skipped by the watchdog. */
  readonly skipped: number;
  /** Only some events wait (minimization). */
  subset: boolean;
  intercept(ev: SchedEvent, q: SchedEvent[] | undefined): unknown;
  ripe(ev: SchedEvent): boolean;
  pick(heads: SchedEvent[]): number;
  samePhaseNext(): SchedEvent | null;
  delivered(ev: SchedEvent): void;
  arm(): void;
  stop(): void;
}

/** Node's process with the internal call that runs the nextTick queue (and the microtasks) now. */
export type TickingProcess = NodeJS.Process & { _tickCallback(): void };
