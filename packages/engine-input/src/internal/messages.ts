// Messages between the engine and its executor process (child/harness.cjs).
// Sent with Node's "advanced" IPC serialization, so inputs travel as
// Uint8Array without base64.

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
