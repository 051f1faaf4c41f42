// Messages between the engine and its executor process (child/harness.cjs,
// which imports these types through JSDoc). Sent with Node's "advanced" IPC
// serialization, so inputs travel as Uint8Array without base64.
//
//   engine ── InitMessage ──> executor ── ChildMessage "ready" | "error"
//          ── ParentMessage "batch" ──>  ── "done" (one per batch)
//          ── ParentMessage "finish" ──> ── "final", then exit 0
//   mode "once": InitMessage ──> OnceChildMessage, then OnceOutcome in resultPath

export interface FileShape {
  rel: string;
  statementMap: Record<string, unknown>;
  fnMap: Record<string, unknown>;
  branchMap: Record<string, unknown>;
}

export type Counts = Record<string, { s: number[]; f: number[]; b: number[][] }>;

export interface ChildFinding {
  seq: number;
  kind: "uncaught" | "rejection";
  message: string;
  stack: string;
  count: number;
  async?: boolean;
  attribution?: string;
}

export type ChildMessage =
  | { t: "error"; kind: "target-invalid"; message: string }
  | { t: "ready"; features: string[]; files: FileShape[]; tokens: Uint8Array[] }
  | {
      t: "done";
      id: number;
      execs: number;
      ms: number;
      newCov: { seq: number; f: string[]; us: number }[];
      loose: string[];
      findings: ChildFinding[];
      files: FileShape[];
      tokens: Uint8Array[];
      counts?: Counts;
    }
  | { t: "final"; findings: ChildFinding[]; loose: string[]; counts: Counts };

/** Engine -> executor after InitMessage (fuzz mode). */
export type ParentMessage =
  | {
      t: "batch";
      id: number;
      /** Sequence number of the first input. */
      base: number;
      /** The inputs end to end (packInputs), `ends` their end offsets. */
      data: Uint8Array;
      ends: Uint32Array;
      /** Send cumulative counts with the answer. */
      snap: boolean;
    }
  | { t: "finish" };

/** Executor -> engine in mode "once": the target loaded (its outcome goes to resultPath), or it did not. */
export type OnceChildMessage = { t: "ready" } | Extract<ChildMessage, { t: "error" }>;

/** What a mode "once" executor writes to resultPath. */
export type OnceOutcome = { kind: "ok" } | { kind: "crash"; crashKind: "uncaught" | "rejection"; message: string; stack: string };

/** The first message of the engine (both modes). */
export interface InitMessage {
  mode: "fuzz" | "once";
  target: string;
  root: string;
  cacheDir: string;
  statusPath: string;
  instrument: boolean;
  known?: string[];
  input?: Uint8Array;
  settleMs?: number;
  resultPath?: string;
}
