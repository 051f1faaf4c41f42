// The program tree the generator builds, the evaluator runs sequentially
// (to know the result) and the emitter prints as WebAssembly text.
import type { GenConfig } from "./config";

export type BinOp =
  | "add" | "sub" | "mul" | "and" | "or" | "xor" | "shl" | "shr_u" | "shr_s" | "rotl" | "rotr"
  | "eq" | "ne" | "lt_u" | "lt_s" | "gt_u" | "gt_s" | "le_u" | "le_s" | "ge_u" | "ge_s";
/** i32 unary operators (sign extension from the SignExt feature, bit counts, eqz). */
export type UnOp = "extend8_s" | "extend16_s" | "eqz" | "clz" | "ctz" | "popcnt";
/** i64 unary operators. */
export type UnOp64 = "extend8_s" | "extend16_s" | "extend32_s" | "clz" | "ctz" | "popcnt";
/**
 * A load of the thread's own scratch bytes (`off` from the scratch base): type,
 * width, signedness (atomic loads are always unsigned), atomic or plain.
 * Atomic accesses are naturally aligned; plain ones may be unaligned.
 */
export interface Mem {
  ty: Ty; w: Width; s: boolean; at: boolean; off: number;
  /** memarg `offset=` (the address operand is then off - moff; `forms`). Default 0, printed only when set. */
  moff?: number;
  /** memarg `align=` in bytes (atomics: their natural alignment, the only one allowed; `forms`). */
  align?: number;
}
/** How a read-modify-write's returned value is used: into a local, dropped, or its low bits only (`forms`). */
export type RetUse = "full" | "drop" | "part";

/** i32-valued expressions. Every read of memory is of the thread's own scratch. */
export type Expr =
  | { k: "c"; v: number }
  | { k: "l"; i: number }
  | { k: "bin"; op: BinOp; a: Expr; b: Expr }
  | { k: "call"; f: number; a: Expr; b: Expr }
  | { k: "sel"; c: Expr; a: Expr; b: Expr }
  | { k: "un"; op: UnOp; a: Expr }
  /** an i32 load (m.ty is "i32") */
  | { k: "ld"; m: Mem }
  /** a let-bound temporary local (see the `let` statement) */
  | { k: "t"; v: number }
  | { k: "wrap"; a: E64 }
  /** an i64 comparison (op is eq..ge_s) */
  | { k: "cmp64"; op: BinOp; a: E64; b: E64 };

/** i64-valued expressions. */
export type E64 =
  | { k: "c"; v: bigint }
  /** i64.extend_i32_s / _u */
  | { k: "ext"; s: boolean; a: Expr }
  | { k: "bin"; op: BinOp; a: E64; b: E64 }
  | { k: "un"; op: UnOp64; a: E64 }
  /** an i64 load (m.ty is "i64") */
  | { k: "ld"; m: Mem };

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
  /** store to the thread's scratch (plain or atomic; m.s unused) of an i32 or an i64 value */
  | { k: "st"; m: Mem; e: Expr }
  | { k: "st64"; m: Mem; e: E64 }
  /** atomic read-modify-write of the thread's own scratch; the returned value (wrapped to i32) goes to local l */
  | { k: "prmw"; m: Mem; op: RmwOp | "cmpxchg"; v: bigint; exp: bigint; l: number; use?: RetUse }
  /**
   * memory.atomic.wait32 / wait64 on the thread's own memory (m.w 32 / 64; `forms`). The expected value is
   * the word's own value (match) or it plus one: a match times out (returns 2; timeout 0 or finite), a
   * mismatch returns 1 at once (any timeout, -1 = infinite). The result goes to local l.
   */
  | { k: "await"; m: Mem; match: boolean; timeout: bigint; l: number }
  /** memory.atomic.notify of the thread's own word with `count` (0, 1, n, -1 = all): no waiter there, returns 0. */
  | { k: "notify"; m: Mem; count: number; l: number }
  | { k: "fence" }
  /** memory.fill / memory.copy inside the thread's scratch */
  | { k: "fill"; off: number; len: number; val: number }
  | { k: "copy"; dst: number; src: number; len: number }
  /** temporary local v = e, live for the ordinary statements of body (which may reference it) */
  | { k: "let"; v: number; e: Expr; body: Stmt[] }
  | { k: "yield"; site: number }
  | { k: "rmw"; site: number; cell: number; op: RmwOp; ty: Ty; w: Width; v: bigint; use: Use; mask: bigint }
  | { k: "cas"; site: number; cell: number; ty: Ty; w: Width; v: bigint }
  | { k: "casloop"; site: number; cell: number; ty: Ty; w: Width; v: bigint }
  | { k: "aload"; site: number; cell: number; ty: Ty; w: Width }
  | { k: "locked"; site: number; lock: number; cell: number; v: number }
  | { k: "spawn"; t: number }
  | { k: "join"; t: number }
  /**
   * Message passing (`forms`): the signaller first writes `msg` plain words to the flag's mailbox (its det
   * plus k), then releases by an atomic store (or an RMW, rel "rmw") and notify; the waiter acquires by its
   * atomic load / wait, then reads the words plainly. Data-race-free, so the result is known.
   */
  | { k: "signal"; flag: number; msg?: number; rel?: "store" | "rmw" }
  | { k: "wait"; flag: number; msg?: number };

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
  /** Initial contents of the thread's scratch, 8-byte words stored at its start (memOps programs). */
  init?: bigint[];
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
