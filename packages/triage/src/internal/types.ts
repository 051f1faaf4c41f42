// Data shapes of triage: a parsed frame, a crash state, a bucket candidate
// and the bucket choice. All plain JSON-able objects, so the coordinator can
// store frames and choices as they are.

/** Where a frame comes from: JavaScript, a WebAssembly function, native code, or a pending handle of a hang. */
export type FrameLang = "js" | "wasm" | "native" | "handle";

export interface Frame {
  /** Function name as printed ("<anonymous>" when V8 printed none; wasm names without "$"). */
  fn: string;
  /** Path relative to the root dir when inside it; node_modules paths from their last `node_modules/`; temp dirs as `<tmp>`. */
  file: string;
  /** 1-based line (wasm: function index), for display only. */
  line: number | null;
  /** 1-based column (wasm: byte offset), for display only. */
  col: number | null;
  /** One line for people, e.g. `parseHeader (lib/parse.js:3:11)`. */
  display: string;
  lang: FrameLang;
  /** Printed as an `async` frame by V8. */
  async: boolean;
  /** Id of the pattern-table entry that marks this frame as noise, or null when the frame is meaningful. */
  ignored: string | null;
}

/** The part of a frame that identifies it (stored bucket frames may carry only this). */
export type FrameLike = Pick<Frame, "fn" | "file"> & Partial<Pick<Frame, "lang">>;

export interface ParseOptions {
  /** Paths under this directory are shown relative to it. Default: none (absolute paths kept). */
  rootDir?: string;
}

export interface CrashStateOptions {
  /** The target's root directory: frame paths in the state are relative to it. */
  rootDir: string;
}

export interface CrashState {
  /** Bucket kind: a crash kind (uncaught, rejection, exit, signal, oom), "hang" or "oracle". */
  kind: string;
  /** What sort of failure within the kind: error class (+ code), signal name, exit code, trap, oracle name; "" if unknown. */
  type: string;
  /** The top meaningful frames (at most STATE_FRAME_COUNT), lines kept for display. */
  frames: Frame[];
  /** The dedup key: kind, type and the frames' function@file (never line numbers). */
  signature: string;
  /** A syzbot-like one-liner, e.g. `uncaught TypeError in parseHeader (lib/parse.js)`. */
  title: string;
  /** The message with numbers, addresses, temp paths, ports, pids and uuids masked. */
  normalizedMessage: string;
}

/** An existing bucket as the coordinator knows it. */
export interface BucketCandidate {
  id: string;
  signature: string;
  kind: string;
  /** The bucket's stored frames; only fn, file and lang are used. */
  frames: readonly FrameLike[];
  normalizedMessage: string;
}

export type BucketRule = "exact" | "similar" | "new";

export interface BucketChoice {
  /** The bucket the crash joins, or null for a new bucket. */
  bucketId: string | null;
  rule: BucketRule;
  /** 1 for exact, the similarity for similar, the best (too low) similarity for new (0 when none). */
  score: number;
  /** Other same-kind buckets that were scored, best first (at most MAX_ALTERNATIVES). */
  alternatives: { id: string; score: number }[];
}
