// The runner protocol, typed once for both ends: the supervisor (supervisor.ts)
// and the child process (child.mjs, plain JS importing these types through
// JSDoc), and inside the child between it and its pool threads (worker.mjs).
// README "Runner protocol" describes the wire: Node IPC with advanced
// serialization, or JSON lines (transport.mjs) under another engine.
//
//   supervisor ── RunnerRequest "load" | "run" | "exit" ──> child ── PoolRequest "load" ──> worker threads
//              <── RunnerReply "ready" | "loaded" | "ran" | "failed" | "log" ──      <── PoolReply "loaded" ──
// A request carries an `id` the reply repeats ("exit" has none: the child just ends).

export interface RunSpec {
  mode: 0 | 1 | 2 | 3;
  seed: number;
  strategy: string;
  barrier?: boolean;
  startOrder?: number[];
  /** race: this run's ordinal among the race runs; picks the focus address from ModuleMeta.shared. */
  focus?: number;
  spinPM?: number;
  sleepPM?: number;
  maxSpin?: number;
  maxSleepUs?: number;
  startDelayUs?: number;
  priorities?: number[];
  changePoints?: number[];
  replay?: number[];
  /** Return the candidate set of every decision (systematic exploration). */
  wantCands?: boolean;
  /** With wantCands: after the replayed prefix, seeded random choices (else the running thread goes on). */
  randomTail?: boolean;
  /** With wantCands: threads not to choose after the replayed prefix until a conflicting access runs (bitmask, a sleep set). */
  sleep?: number;
  /** Token modes: the threads run to their first yield point at once, without the token (no entry decisions). */
  freeEntry?: boolean;
  /** With sleep: byte width of the access at each instrumentation site (index: site - 10000). */
  siteWidths?: number[];
  wakeMs?: number;
  lostMs?: number;
}
export interface RunError {
  kind: "deadlock" | "lost-wakeup" | "timeout" | "trap";
  message: string;
  states: string;
  thread?: number;
}
export interface RunResult {
  outcome: string | null;
  error?: RunError;
  decisions: number[];
  /** With spec.wantCands: bitmask of the candidate threads at each decision. */
  cands?: number[];
  /** With spec.wantCands: per decision, the chosen thread's access as [address (-1: none), site*4 + kind]. */
  accs?: number[];
  logs?: [number, bigint][][];
  /** With wantLogs (generated programs): each thread's published "det;rsum", for explanations. */
  regions?: string[];
  ms: number;
  recovery?: string;
}
export interface ModuleMeta {
  kind: "gen" | "litmus";
  threads: number;
  memory: { initial: number; maximum: number };
  hasFinal?: boolean;
  /** Focus groups of addresses several threads access unordered (a cell; a lock word and its cell): race runs target them in turn. */
  shared?: number[][];
  readout?: { regions: number[]; det: number; rsum: number; logn: number; log: number; maxLog: number; cells: { addr: number; w: number }[] };
}

/** Supervisor -> runner child. */
export type RunnerRequest =
  | { type: "load"; id: number; wasm: Uint8Array; meta: ModuleMeta }
  | { type: "run"; id: number; specs: RunSpec[]; timeoutMs: number; wantLogs: boolean }
  | { type: "exit" };

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;
/** A request as the supervisor's `request` takes it (it adds the id). */
export type RunnerCall = WithoutId<Extract<RunnerRequest, { id: number }>>;

/** Runner child -> supervisor. */
export type RunnerReply =
  | { type: "ready" }
  | { type: "loaded"; id: number }
  | { type: "ran"; id: number; results: RunResult[] }
  | { type: "failed"; id: number; message: string }
  | { type: "log"; message: string };

/**
 * What a pending request resolves to at the supervisor: the child's reply, or what became of the child
 * (it crashed, ended, or did not answer in time).
 */
export type RunnerAnswer = Extract<RunnerReply, { id: number }> | { type: "crashed" | "exited" | "unresponsive" };

// ---------------------------------------------------------------- inside the child

/**
 * The WebAssembly objects the runner handles. The repo's TypeScript lib has no WebAssembly namespace,
 * so the parts used are declared here.
 */
export interface WasmMemory {
  readonly buffer: SharedArrayBuffer;
}
/** A compiled module: opaque, passed from the child to its threads. */
export type WasmModule = object;
export interface WasmInstance {
  readonly exports: Record<string, (...args: unknown[]) => unknown>;
}
export interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Memory: new (d: { initial: number; maximum: number; shared: true }) => WasmMemory;
  Instance: new (m: WasmModule, imports: Record<string, Record<string, unknown>>) => WasmInstance;
}
/** Atomics.waitAsync (ES2024; not in the repo's lib). */
export type WaitAsync = (
  ta: Int32Array,
  index: number,
  value: number,
  timeoutMs?: number,
) => { async: false; value: "not-equal" | "timed-out" } | { async: true; value: Promise<"ok" | "timed-out"> };

/** workerData of a pool thread. */
export interface PoolWorkerData {
  index: number;
  /** The control words (ctl.mjs layout). */
  ctl: SharedArrayBuffer;
  /** A thread's trap message: length, then UTF-8 bytes. */
  err: SharedArrayBuffer;
}

/** Child -> pool thread: instantiate this module on this memory. */
export type PoolRequest = { type: "load"; module: WasmModule; memory: WasmMemory; meta: Pick<ModuleMeta, "kind"> };
/** Pool thread -> child. */
export type PoolReply = { type: "loaded"; index: number; error?: string };
