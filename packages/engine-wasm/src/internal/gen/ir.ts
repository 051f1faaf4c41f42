// The program tree the generator builds, the evaluator runs sequentially
// (to know the result) and the emitter prints as WebAssembly text.
import type { GenConfig } from "./config";

export type BinOp = "add" | "sub" | "mul" | "and" | "or" | "xor" | "shl" | "shr_u" | "rotl" | "eq" | "lt_u";
export type Expr =
  | { k: "c"; v: number }
  | { k: "l"; i: number }
  | { k: "bin"; op: BinOp; a: Expr; b: Expr }
  | { k: "call"; f: number; a: Expr; b: Expr }
  | { k: "sel"; c: Expr; a: Expr; b: Expr };

export type RmwOp = "add" | "sub" | "and" | "or" | "xor" | "xchg";
export type Ty = "i32" | "i64";
export type Width = 8 | 16 | 32 | 64;
/** How a returned value feeds the result: dropped, summed into rsum, or masked into det. */
export type Use = "drop" | "sum" | "mask";

export type Stmt =
  | { k: "set"; l: number; e: Expr }
  | { k: "mix"; e: Expr }
  | { k: "if"; c: Expr; t: Stmt[]; f: Stmt[] }
  | { k: "loop"; n: number; body: Stmt[] }
  | { k: "pstore"; slot: number; e: Expr }
  | { k: "pload"; slot: number; l: number }
  | { k: "yield"; site: number }
  | { k: "rmw"; site: number; cell: number; op: RmwOp; ty: Ty; w: Width; v: bigint; use: Use; mask: bigint }
  | { k: "cas"; site: number; cell: number; ty: Ty; w: Width; v: bigint }
  | { k: "casloop"; site: number; cell: number; ty: Ty; w: Width; v: bigint }
  | { k: "aload"; site: number; cell: number; ty: Ty; w: Width }
  | { k: "locked"; site: number; lock: number; cell: number; v: number }
  | { k: "spawn"; t: number }
  | { k: "join"; t: number }
  | { k: "signal"; flag: number }
  | { k: "wait"; flag: number };

export type CellClass = "add" | "bits" | "xchg" | "cas" | "locked";
export interface Cell {
  cls: CellClass;
  w: Width;
}
export interface Thread {
  id: number;
  parent: number;
  depth: number;
  body: Stmt[];
}
export interface Helper {
  /** Body expression over params (locals 0 and 1); may call lower-numbered helpers. */
  e: Expr;
}
export interface Program {
  seed: number;
  config: GenConfig;
  threads: Thread[];
  cells: Cell[];
  locks: number;
  flags: number;
  helpers: Helper[];
  /** Shared-everything: number of shared globals emitted (0 unless the flag is on). */
  sharedGlobals: number;
}

/** Number of ordinary i32 locals every thread has (beyond det, rsum, log index, loop counters). */
export const NLOCALS = 4;
/** Statement kinds that touch shared memory (or synchronize). */
export const SHARED_KINDS = new Set(["rmw", "cas", "casloop", "aload", "locked", "spawn", "join", "signal", "wait"]);
