// Seeded, grammar-based program generator. Programs terminate and have a
// result known in advance by construction:
//  - spawn/join form a tree; a parent spawns its children in id order and joins
//    them only after its last spawn;
//  - wait/notify pairs link siblings: child i waits only on a flag that an
//    earlier sibling j < i signals unconditionally (no cycles, no lost pairs);
//  - a spinlock belongs to one parent and is used only by that parent's children,
//    always as a paired lock/unlock around an atomic load+store of one cell;
//  - every shared cell has a class whose final value and the used projection of
//    each returned value do not depend on the order (see CellClass in ir.ts);
//  - plain loads and stores touch only the thread's own region; so do the
//    atomic loads, stores and read-modify-writes of ordinary code (all widths
//    and signedness), memory.fill and memory.copy: no data races, and their
//    values are those of the thread's own program order.
// Ordinary code grows by grammar: i32 and i64 expressions over locals, loads,
// let-bound temporaries (a load's value live across the statements of its
// body, calls included), sign and zero extension (extendN_s, the shift pair,
// masks), shifts by any count (wasm takes it mod the width), comparisons, and
// a per-program pool of constants and scratch addresses that values are
// drawn from, as a program's variables and literals recur.
// The expected result is then the result of any one legal sequential execution
// (evaluate.ts runs one).
import { createRng, type Rng } from "@fuzzfarm/rng";
import type { GenConfig } from "./config";
import type { BinOp, Cell, E64, Expr, Mem, Program, RmwOp, Stmt, Thread, Ty, UnOp, UnOp64, Width } from "./ir";
import { NLOCALS } from "./ir";
import { MAX_LOG, MAX_THREADS, SCRATCH_BYTES, SCRATCH_SLOTS } from "./layout";

const BINOPS: BinOp[] = ["add", "sub", "mul", "and", "or", "xor", "shl", "shr_u", "rotl", "eq", "lt_u"];
const BINOPS_MORE: BinOp[] = [...BINOPS, "shr_s", "rotr", "ne", "lt_s", "gt_u", "gt_s", "le_u", "le_s", "ge_u", "ge_s"];
const ARITH64: BinOp[] = ["add", "sub", "mul", "and", "or", "xor", "shl", "shr_u", "shr_s", "rotl", "rotr"];
const CMPS: BinOp[] = ["eq", "ne", "lt_u", "lt_s", "gt_u", "gt_s", "le_u", "le_s", "ge_u", "ge_s"];
const BOUNDARY = [0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000 | 0, -1, -128, -129, -256, -32768, -32769, -65536];

/** Weight bands of chain() steps: extend, compare, add/sub, shift, shift pair, logic, unary, multiply. */
const CHAIN_BANDS: [number, number][] = [[0, 20], [20, 35], [35, 50], [50, 62], [62, 72], [72, 82], [82, 90], [90, 100]];

/** What an expression may read: locals always; loads and temporaries only in thread code. */
interface Ctx {
  mem: boolean;
  temps: { v: number; w: Width }[];
}
const WIDTH_MASK: Record<Width, bigint> = { 8: 0xffn, 16: 0xffffn, 32: 0xffffffffn, 64: 0xffffffffffffffffn };

interface CellPlan {
  cell: Cell;
  /** add class: one fixed (op, v) when the cell's returns are summed. */
  uniform?: { op: RmwOp; v: bigint };
  /** xchg / cas class: the one value written. */
  value?: bigint;
  /** bits class: bits not yet owned by an operation. */
  freeBits?: number[];
  /** locked class: the lock and the parent whose children may use it. */
  lock?: number;
  owner?: number;
}

class Gen {
  readonly rng: Rng;
  site = 1;
  plans: CellPlan[] = [];
  threads: Thread[] = [];
  helpers: { e: Expr }[] = [];
  locks = 0;
  flags = 0;
  /** Per-program literals and scratch addresses that values are drawn from. */
  pool: number[] = [];
  addrs: number[] = [];
  temps: number[] = [];
  /** Per-program swarm choices: enabled chain step kinds, how often constants sit at a width's edges. */
  swarm = { steps: CHAIN_BANDS.map(() => true), edge: 0.6 };
  constructor(readonly seed: number, readonly cfg: GenConfig) {
    this.rng = createRng(seed);
  }

  expr(depth: number, helperLimit = this.helpers.length, nparams = NLOCALS, ctx: Ctx | null = null): Expr {
    if (!this.cfg.memOps) {
      const r = this.rng.between(0, 9);
      if (depth <= 0 || r < 3) return r < 1 ? { k: "c", v: this.rng.u32() | 0 } : { k: "l", i: this.rng.between(0, nparams - 1) };
      if (r < 8) return { k: "bin", op: this.rng.choose(BINOPS), a: this.expr(depth - 1, helperLimit, nparams), b: this.expr(depth - 1, helperLimit, nparams) };
      if (r < 9 && helperLimit > 0)
        return { k: "call", f: this.rng.between(0, helperLimit - 1), a: this.expr(depth - 1, helperLimit, nparams), b: this.expr(depth - 1, helperLimit, nparams) };
      return { k: "sel", c: this.expr(depth - 1, helperLimit, nparams), a: this.expr(depth - 1, helperLimit, nparams), b: this.expr(depth - 1, helperLimit, nparams) };
    }
    const sub = (): Expr => this.expr(depth - 1, helperLimit, nparams, ctx);
    const r = this.rng.between(0, 99);
    if (depth <= 0 || r < 20) return this.leaf(nparams, ctx);
    if (r < 30 && ctx?.mem) {
      const m = this.mem("i32", false);
      return this.chain({ k: "ld", m }, m.w, this.rng.between(1, 3));
    }
    if (r < 40) return { k: "bin", op: this.rng.choose(BINOPS_MORE), a: sub(), b: this.rng.chance(0.4) ? this.k32() : sub() };
    if (r < 50) return this.extend(sub(), this.rng.choose([8, 16] as Width[]));
    if (r < 57) return this.shiftPair(sub());
    if (r < 64) return { k: "bin", op: this.rng.choose(CMPS), a: sub(), b: this.k32() };
    if (r < 70) return { k: "un", op: this.rng.choose(this.unOps()), a: sub() };
    if (r < 78 && ctx?.mem) return this.rng.chance(0.7) ? { k: "wrap", a: this.e64(depth - 1, ctx) } : { k: "cmp64", op: this.rng.choose(CMPS), a: this.e64(depth - 1, ctx), b: this.k64() };
    if (r < 88 && helperLimit > 0) return { k: "call", f: this.rng.between(0, helperLimit - 1), a: sub(), b: sub() };
    return { k: "sel", c: sub(), a: sub(), b: sub() };
  }

  /**
   * A value flowing through a short chain of one-operand steps (the shape of
   * code that decodes a loaded value): extension to its width, comparison,
   * add/sub, shifts, a bit-field extraction, masks, bit counts, a product.
   * Constants are drawn from the pool or from the boundaries of the value's
   * width (w tracks the bits the value may have: a narrow load, a mask).
   */
  chain(x: Expr, w: Width, n: number): Expr {
    let e = x;
    let bits: number = w;
    for (let i = 0; i < n; i++) {
      const r = this.step();
      if (r < 20) {
        const ew: Width = bits < 32 && this.rng.chance(0.7) ? (bits <= 8 ? 8 : 16) : this.rng.choose([8, 16] as Width[]);
        e = this.extend(e, ew);
        bits = ew;
      } else if (r < 35) {
        e = { k: "bin", op: this.rng.choose(CMPS), a: e, b: this.edge(bits) };
        bits = 1;
      } else if (r < 50) {
        e = { k: "bin", op: this.rng.choose(["add", "sub"] as BinOp[]), a: e, b: this.edge(this.rng.choose([bits, 32])) };
        bits = 32;
      } else if (r < 62) {
        const op = this.rng.choose(["shl", "shr_u", "shr_s", "rotl", "rotr"] as BinOp[]);
        const c = this.shiftCount();
        e = { k: "bin", op, a: e, b: { k: "c", v: c } };
        bits = op === "shr_u" && (c & 31) ? 32 - (c & 31) : 32;
      } else if (r < 72) {
        e = this.shiftPair(e);
        bits = 32;
      } else if (r < 82) {
        const op = this.rng.choose(["and", "or", "xor"] as BinOp[]);
        const c = op === "and" && this.rng.chance(0.5) ? { k: "c" as const, v: Number(WIDTH_MASK[this.rng.choose([8, 16] as Width[])]) } : this.k32();
        e = { k: "bin", op, a: e, b: c };
        bits = op === "and" ? Math.min(bits, 32 - Math.clz32(c.v)) : 32;
      } else if (r < 90) {
        e = { k: "un", op: this.rng.choose(this.unOps()), a: e };
        bits = e.op === "extend8_s" || e.op === "extend16_s" ? 32 : 6;
      } else {
        e = { k: "bin", op: "mul", a: e, b: this.k32() };
        bits = 32;
      }
    }
    return e;
  }

  /**
   * A chain step, as a number in the weight bands of chain(): swarm testing
   * (Groce et al., ISSTA 2012): each program enables a random subset of the
   * step kinds, so that rarer combinations of steps come up often.
   */
  step(): number {
    const on = CHAIN_BANDS.filter((_, i) => this.swarm.steps[i]);
    const total = on.reduce((a, [lo, hi]) => a + hi - lo, 0);
    let r = this.rng.between(0, total - 1);
    for (const [lo, hi] of on) {
      if (r < hi - lo) return lo + r;
      r -= hi - lo;
    }
    return 0;
  }

  /** A constant at an edge of a value of `bits` bits: +-2^(bits-1), 2^bits - 1, 2^bits, their complements, +-1; or a pool value. */
  edge(bits: number): Extract<Expr, { k: "c" }> {
    if (!this.rng.chance(this.swarm.edge)) return this.k32();
    const b = Math.max(1, Math.min(32, bits));
    const base = this.rng.choose([2 ** (b - 1), 2 ** b - 1, 2 ** b, -(2 ** (b - 1)), -(2 ** b)]);
    return { k: "c", v: (base + this.rng.between(-1, 1)) | 0 };
  }

  /** A word of a thread's initial scratch: pool values, random bits, or bytes at the sign edge. */
  initWord(): bigint {
    const r = this.rng.between(0, 9);
    if (r < 4) return BigInt.asUintN(64, BigInt(this.k32().v));
    if (r < 7) return this.rng.u64();
    let v = 0n;
    for (let i = 0; i < 8; i++) v |= BigInt(this.rng.choose([0x00, 0x01, 0x7f, 0x80, 0xff])) << BigInt(8 * i);
    return v;
  }

  unOps(): UnOp[] {
    return this.cfg.signExt ? ["extend8_s", "extend16_s", "eqz", "clz", "ctz", "popcnt"] : ["eqz", "clz", "ctz", "popcnt"];
  }

  leaf(nparams: number, ctx: Ctx | null): Expr {
    if (ctx?.temps.length && this.rng.chance(0.5)) {
      const t = this.rng.chance(0.7) ? ctx.temps[ctx.temps.length - 1]! : this.rng.choose(ctx.temps);
      const e: Expr = { k: "t", v: t.v };
      // A narrow value is often extended from its own width (type-directed).
      return t.w < 32 && this.rng.chance(0.35) ? this.extend(e, t.w) : e;
    }
    if (ctx?.mem && this.rng.chance(0.25)) return { k: "ld", m: this.mem("i32", false) };
    return this.rng.chance(0.33) ? this.k32() : { k: "l", i: this.rng.between(0, nparams - 1) };
  }

  /** Sign or zero extension of the low `w` bits: extendN_s, the shift pair, or a mask. */
  extend(e: Expr, w: Width): Expr {
    const forms = this.cfg.signExt && w < 32 ? ["un", "shift", "shift", "mask"] : ["shift", "mask"];
    const f = this.rng.choose(forms);
    const sh = 32 - w;
    if (f === "un") return { k: "un", op: w === 8 ? "extend8_s" : "extend16_s", a: e };
    if (f === "mask") return { k: "bin", op: "and", a: e, b: { k: "c", v: Number(WIDTH_MASK[w] & 0xffffffffn) | 0 } };
    return { k: "bin", op: "shr_s", a: { k: "bin", op: "shl", a: e, b: { k: "c", v: sh } }, b: { k: "c", v: sh } };
  }

  /** (e << a) >> b, signed or unsigned: a bit-field extraction (a = b: an extension). */
  shiftPair(e: Expr): Expr {
    const a = this.shiftCount();
    const b = this.rng.chance(0.4) ? a : this.shiftCount();
    return { k: "bin", op: this.rng.chance(0.6) ? "shr_s" : "shr_u", a: { k: "bin", op: "shl", a: e, b: { k: "c", v: a } }, b: { k: "c", v: b } };
  }

  shiftCount(): number {
    const r = this.rng.between(0, 9);
    if (r < 5) return this.rng.between(1, 31);
    if (r < 8) return this.rng.choose([8, 16, 24]);
    return this.k32().v as number;
  }

  interesting(): number {
    switch (this.rng.between(0, 5)) {
      case 0: return this.rng.between(0, 300);
      case 1: return -this.rng.between(1, 300);
      case 2: return ((1 << this.rng.between(0, 31)) + this.rng.between(-1, 1)) | 0;
      case 3: return this.rng.choose(BOUNDARY);
      default: return this.rng.u32() | 0;
    }
  }

  k32(): Extract<Expr, { k: "c" }> {
    return { k: "c", v: this.pool.length && this.rng.chance(0.7) ? this.rng.choose(this.pool) : this.interesting() };
  }

  k64(): Extract<E64, { k: "c" }> {
    const r = this.rng.between(0, 3);
    const x = this.k32().v;
    if (r === 0) return { k: "c", v: BigInt.asUintN(64, BigInt(x)) };
    if (r === 1) return { k: "c", v: BigInt(x >>> 0) };
    if (r === 2) return { k: "c", v: BigInt(this.rng.between(0, 70)) };
    return { k: "c", v: this.rng.u64() };
  }

  e64(depth: number, ctx: Ctx): E64 {
    const r = this.rng.between(0, 99);
    if (depth <= 0 || r < 25) return this.rng.chance(0.5) ? { k: "ld", m: this.mem("i64", false) } : this.k64();
    if (r < 55) return { k: "bin", op: this.rng.choose(ARITH64), a: this.e64(depth - 1, ctx), b: this.rng.chance(0.4) ? this.k64() : this.e64(depth - 1, ctx) };
    if (r < 80) return { k: "ext", s: this.rng.chance(0.5), a: this.expr(depth - 1, this.helpers.length, NLOCALS, ctx) };
    const ops: UnOp64[] = this.cfg.signExt ? ["extend8_s", "extend16_s", "extend32_s", "clz", "ctz", "popcnt"] : ["clz", "ctz", "popcnt"];
    return { k: "un", op: this.rng.choose(ops), a: this.e64(depth - 1, ctx) };
  }

  /** A scratch access of type `ty`: width, signedness, atomic or plain, an offset that fits (aligned when atomic). */
  mem(ty: Ty, store: boolean, atomic = this.rng.chance(0.3)): Mem {
    const ws: Width[] = ty === "i32" ? [8, 16, 32] : [8, 16, 32, 64];
    const w = this.rng.choose(ws);
    const bytes = w / 8;
    const base = this.addrs.length && this.rng.chance(0.8) ? this.rng.choose(this.addrs) : this.rng.between(0, SCRATCH_BYTES - 8);
    let off = this.rng.chance(0.6) ? base : base + this.rng.between(0, 7);
    if (atomic) off -= off % bytes;
    off = Math.min(off, SCRATCH_BYTES - bytes);
    const full = ty === "i32" ? 32 : 64;
    const m: Mem = { ty, w, s: !atomic && !store && w < full && this.rng.chance(0.5), at: atomic, off };
    return this.cfg.forms ? this.memarg(m) : m;
  }

  /**
   * memarg forms (`forms`): an `offset=` of 0, small or large (the address operand makes up the rest; the
   * scratch of every thread starts at 1056 or above), and an `align=` annotation: an atomic's natural
   * alignment (the only one it may have), a plain access's natural or smaller one.
   */
  memarg(m: Mem): Mem {
    const r = this.rng.between(0, 9);
    if (r < 4) return m;
    const moff = r < 6 ? 0 : r < 8 ? this.rng.between(1, 16) : this.rng.between(256, 1056);
    const natural = m.w / 8;
    const align = m.at || this.rng.chance(0.5) ? natural : this.rng.choose([1, 2, 4, 8].filter((a) => a <= natural));
    return { ...m, ...(moff ? { moff } : {}), ...(this.rng.chance(0.6) ? { align } : {}) };
  }

  /** The threads instruction set in its other forms, on the thread's own memory (`forms`). */
  formStmt(): Stmt {
    const r = this.rng.between(0, 99);
    if (r < 15 && this.cfg.fence) return { k: "fence" };
    if (r < 45) {
      const m = this.mem(this.cfg.i64 && this.rng.chance(0.4) ? "i64" : "i32", false, true);
      const wm: Mem = { ...m, w: m.ty === "i32" ? 32 : 64, off: m.off - (m.off % (m.ty === "i32" ? 4 : 8)), ...(m.align ? { align: m.ty === "i32" ? 4 : 8 } : {}) };
      const match = this.rng.chance(0.5);
      // a matching wait must end by itself: timeout 0 or finite (ns); a mismatch returns at once, so -1 too
      const timeout = this.rng.choose(match ? [0n, 1000n] : [0n, 1000n, -1n]);
      return { k: "await", m: wm, match, timeout, l: this.rng.between(0, NLOCALS - 1) };
    }
    if (r < 65) {
      const m = this.mem("i32", false, true);
      return { k: "notify", m: { ...m, w: 32, off: m.off - (m.off % 4), ...(m.align ? { align: 4 } : {}) }, count: this.rng.choose([0, 1, 3, -1]), l: this.rng.between(0, NLOCALS - 1) };
    }
    // A narrow RMW / cmpxchg whose operands do not fit the access width (the engine wraps them), and whose
    // result is used, dropped or used in part.
    const ty: Ty = this.cfg.i64 && this.rng.chance(0.4) ? "i64" : "i32";
    const m = this.mem(ty, true, true);
    const bits = ty === "i32" ? 32 : 64;
    const wide = (): bigint => BigInt.asUintN(bits, this.rng.chance(0.5) ? this.rng.u64() : BigInt(this.k32().v) | (1n << BigInt(Math.min(m.w, bits - 1))));
    const op = this.rng.choose(["add", "sub", "and", "or", "xor", "xchg", "cmpxchg"] as const);
    return { k: "prmw", m, op, v: wide(), exp: wide(), l: this.rng.between(0, NLOCALS - 1), use: this.rng.choose(["full", "drop", "part"] as const) };
  }

  /** An ordinary statement over the thread's own memory (memOps grammar). */
  memStmt(t: Thread, depth: number, ctx: Ctx): Stmt {
    if (this.cfg.forms && this.rng.chance(0.2)) return this.formStmt();
    const r = this.rng.between(0, 99);
    if (r < 50) return this.letStmt(t, depth, ctx);
    if (r < 68) return { k: "st", m: this.mem("i32", true), e: this.expr(2, this.helpers.length, NLOCALS, ctx) };
    if (r < 76) return { k: "st64", m: this.mem("i64", true), e: this.e64(2, ctx) };
    if (r < 90 || !this.cfg.bulkMemory) {
      const m = this.mem(this.rng.chance(0.6) ? "i32" : "i64", true, true);
      const op = this.rng.choose(["add", "sub", "and", "or", "xor", "xchg", "cmpxchg"] as const);
      const v = BigInt.asUintN(m.w, BigInt(this.k32().v));
      const exp = this.rng.chance(0.5) ? 0n : BigInt.asUintN(m.w, BigInt(this.k32().v));
      return { k: "prmw", m, op, v, exp, l: this.rng.between(0, NLOCALS - 1) };
    }
    const len = this.rng.between(0, 24);
    if (this.rng.chance(0.5)) return { k: "fill", off: this.rng.between(0, SCRATCH_BYTES - len), len, val: this.k32().v };
    return { k: "copy", dst: this.rng.between(0, SCRATCH_BYTES - len), src: this.rng.between(0, SCRATCH_BYTES - len), len };
  }

  /** let tV = (a load, usually) in 1..2 ordinary statements that read it. */
  letStmt(t: Thread, depth: number, ctx: Ctx): Stmt {
    const v = this.temps[t.id]!++;
    let e: Expr;
    let w: Width = 32;
    if (this.rng.chance(0.8)) {
      const m = this.mem("i32", false);
      e = { k: "ld", m };
      w = m.w === 32 || m.s ? 32 : m.w;
    } else e = this.expr(2, this.helpers.length, NLOCALS, ctx);
    const e0 = (): Expr => e;
    const inner: Ctx = { mem: true, temps: [...ctx.temps, { v, w }] };
    const body: Stmt[] = [];
    if (this.rng.chance(0.6)) {
      // The temporary read once, through a chain, into the result or memory.
      const e = this.chain({ k: "t", v }, w, this.rng.between(1, 3));
      body.push(this.rng.chance(0.7) ? { k: "mix", e } : { k: "st", m: this.mem("i32", true), e });
      if (this.rng.chance(0.3)) body.push({ k: "yield", site: this.site++ });
      return { k: "let", v, e: e0(), body };
    }
    for (let i = this.rng.between(1, 2); i > 0; i--) {
      const r = this.rng.between(0, 9);
      if (r < 4) body.push({ k: "mix", e: this.expr(3, this.helpers.length, NLOCALS, inner) });
      else if (r < 6) body.push({ k: "set", l: this.rng.between(0, NLOCALS - 1), e: this.expr(3, this.helpers.length, NLOCALS, inner) });
      else if (r < 7) body.push({ k: "st", m: this.mem("i32", true), e: this.expr(2, this.helpers.length, NLOCALS, inner) });
      else if (r < 8) body.push({ k: "yield", site: this.site++ });
      else if (depth < 2) body.push({ k: "if", c: this.expr(2, this.helpers.length, NLOCALS, inner), t: [{ k: "mix", e: this.expr(2, this.helpers.length, NLOCALS, inner) }], f: [] });
      else body.push({ k: "mix", e: this.expr(2, this.helpers.length, NLOCALS, inner) });
    }
    return { k: "let", v, e: e0(), body };
  }

  tyFor(w: Width): Ty {
    if (w === 64) return "i64";
    return this.cfg.i64 && this.rng.chance(0.3) ? "i64" : "i32";
  }

  /** A value with bits spread over the whole width (so narrowing is visible). */
  value(w: Width): bigint {
    const v = this.rng.u64() & WIDTH_MASK[w];
    return v === 0n ? 1n : v;
  }

  planCells(): void {
    const parentsWithSiblings = this.threads.filter((t) => this.threads.filter((c) => c.parent === t.id).length >= 2);
    const lockOf = new Map<number, number>();
    for (let c = 0; c < this.cfg.cells; c++) {
      const classes: Cell["cls"][] = ["add", "add", "bits", "xchg", "cas"];
      if (this.cfg.locks && parentsWithSiblings.length) classes.push("locked", "locked");
      const cls = this.rng.choose(classes);
      const widths: Width[] = this.cfg.i64 ? [8, 16, 32, 64] : [8, 16, 32];
      const w: Width = cls === "locked" ? 32 : this.rng.choose(widths);
      const plan: CellPlan = { cell: { cls, w } };
      if (cls === "add" && this.rng.chance(0.5)) plan.uniform = { op: this.rng.choose(["add", "sub"] as RmwOp[]), v: this.value(w) };
      if (cls === "xchg" || cls === "cas") plan.value = this.value(w);
      if (cls === "bits") plan.freeBits = this.rng.shuffle([...Array(w).keys()]);
      if (cls === "locked") {
        const owner = this.rng.choose(parentsWithSiblings).id;
        if (!lockOf.has(owner)) lockOf.set(owner, this.locks++);
        plan.lock = lockOf.get(owner)!;
        plan.owner = owner;
      }
      this.plans.push(plan);
    }
  }

  /** One shared-memory operation thread `t` may perform, or null. */
  sharedOp(t: Thread): Stmt | null {
    const usable = this.plans.map((p, i) => [p, i] as const).filter(([p]) => p.cell.cls !== "locked" || p.owner === t.parent);
    if (!usable.length) return null;
    const [p, cell] = this.rng.choose(usable);
    const w = p.cell.w;
    const site = this.site++;
    switch (p.cell.cls) {
      case "locked":
        return { k: "locked", site, lock: p.lock!, cell, v: this.rng.u32() | 0 };
      case "xchg":
        return { k: "rmw", site, cell, op: "xchg", ty: this.tyFor(w), w, v: p.value!, use: "sum", mask: 0n };
      case "cas":
        return { k: "cas", site, cell, ty: this.tyFor(w), w, v: p.value! };
      case "bits": {
        const n = Math.min(this.rng.between(1, 3), p.freeBits!.length);
        if (n === 0) return { k: "aload", site, cell, ty: this.tyFor(w), w };
        let bits = 0n;
        for (let i = 0; i < n; i++) bits |= 1n << BigInt(p.freeBits!.pop()!);
        const op = this.rng.choose(["and", "or", "xor"] as RmwOp[]);
        const v = op === "and" ? ~bits & WIDTH_MASK[w] : bits;
        return { k: "rmw", site, cell, op, ty: this.tyFor(w), w, v, use: "mask", mask: bits };
      }
      case "add": {
        if (p.uniform) return { k: "rmw", site, cell, op: p.uniform.op, ty: this.tyFor(w), w, v: p.uniform.v, use: "sum", mask: 0n };
        const r = this.rng.between(0, 9);
        if (r < 2) return { k: "casloop", site, cell, ty: this.tyFor(w), w, v: this.value(w) };
        if (r < 3) return { k: "aload", site, cell, ty: this.tyFor(w), w };
        return { k: "rmw", site, cell, op: this.rng.choose(["add", "sub"] as RmwOp[]), ty: this.tyFor(w), w, v: this.value(w), use: "drop", mask: 0n };
      }
    }
  }

  /** A list of statements; `budget` bounds logged ops (times the loop multiplier `mult`). */
  stmts(t: Thread, n: number, depth: number, mult: number, budget: { log: number }): Stmt[] {
    const out: Stmt[] = [];
    for (let i = 0; i < n; i++) {
      if (this.rng.chance(this.cfg.yieldRate)) out.push({ k: "yield", site: this.site++ });
      if (this.cfg.memOps && this.rng.chance(0.3)) {
        out.push(this.memStmt(t, depth, { mem: true, temps: [] }));
        continue;
      }
      const r = this.rng.between(0, 99);
      if (r < 40 && budget.log >= mult) {
        const s = this.sharedOp(t);
        if (s) {
          budget.log -= mult;
          out.push(s);
          continue;
        }
      }
      if (r < 52 && depth < 2) {
        const c = this.expr(2);
        out.push({ k: "if", c, t: this.stmts(t, this.rng.between(1, 3), depth + 1, mult, budget), f: this.stmts(t, this.rng.between(0, 2), depth + 1, mult, budget) });
      } else if (r < 62 && depth < 2) {
        const n2 = this.rng.between(1, 3);
        out.push({ k: "loop", n: n2, body: this.stmts(t, this.rng.between(1, 3), depth + 1, mult * n2, budget) });
      } else if (r < 72) out.push({ k: "set", l: this.rng.between(0, NLOCALS - 1), e: this.expr(3, this.helpers.length, NLOCALS, this.threadCtx()) });
      else if (r < 80) out.push({ k: "pstore", slot: this.rng.between(0, SCRATCH_SLOTS - 1), e: this.expr(2, this.helpers.length, NLOCALS, this.threadCtx()) });
      else if (r < 86) out.push({ k: "pload", slot: this.rng.between(0, SCRATCH_SLOTS - 1), l: this.rng.between(0, NLOCALS - 1) });
      else out.push({ k: "mix", e: this.expr(3, this.helpers.length, NLOCALS, this.threadCtx()) });
    }
    return out;
  }

  threadCtx(): Ctx | null {
    return this.cfg.memOps ? { mem: true, temps: [] } : null;
  }

  build(): Program {
    const cfg = this.cfg;
    const maxT = Math.min(cfg.threads, MAX_THREADS);
    const n = cfg.depth === 0 ? 1 : this.rng.between(Math.min(2, maxT), maxT);
    this.threads.push({ id: 0, parent: -1, depth: 0, body: [] });
    for (let t = 1; t < n; t++) {
      const parents = this.threads.filter((p) => p.depth < cfg.depth);
      const p = this.rng.choose(parents);
      this.threads.push({ id: t, parent: p.id, depth: p.depth + 1, body: [] });
    }
    if (cfg.memOps) {
      const steps = CHAIN_BANDS.map(() => this.rng.chance(0.5));
      if (!steps.some(Boolean)) steps[this.rng.between(0, steps.length - 1)] = true;
      this.swarm = { steps, edge: this.rng.choose([0.2, 0.6, 0.9]) };
      for (let i = 0; i < 8; i++) this.pool.push(this.interesting());
      for (let i = 0; i < 6; i++) this.addrs.push(8 * this.rng.between(0, SCRATCH_BYTES / 8 - 1));
    }
    this.temps = this.threads.map(() => 0);
    if (cfg.memOps) for (const t of this.threads) t.init = [...Array(SCRATCH_BYTES / 8).keys()].map(() => this.initWord());
    for (let h = 0; h < cfg.helpers; h++) this.helpers.push({ e: this.expr(3, h, 2) });
    this.planCells();
    for (const t of this.threads) t.body = this.stmts(t, cfg.stmts, 0, 1, { log: MAX_LOG - 4 });
    if (cfg.waits) this.placeWaits();
    for (const t of this.threads) this.placeSpawns(t);
    return {
      seed: this.seed,
      config: cfg,
      threads: this.threads,
      cells: this.plans.map((p) => p.cell),
      locks: this.locks,
      flags: this.flags,
      helpers: this.helpers,
      sharedGlobals: cfg.sharedEverything ? this.rng.between(1, 3) : 0,
    };
  }

  insertTop(body: Stmt[], s: Stmt, lo = 0, hi = body.length): number {
    const at = this.rng.between(lo, hi);
    body.splice(at, 0, s);
    return at;
  }

  placeWaits(): void {
    for (const p of this.threads) {
      const kids = this.threads.filter((c) => c.parent === p.id);
      for (let i = 1; i < kids.length; i++) {
        if (!this.rng.chance(0.6)) continue;
        const j = this.rng.between(0, i - 1);
        const flag = this.flags++;
        // message passing: plain data handed over by the flag's release / acquire (forms grammar)
        const msg = this.cfg.forms ? this.rng.between(0, 3) : 0;
        const rel = this.cfg.forms && this.rng.chance(0.4) ? "rmw" as const : "store" as const;
        this.insertTop(kids[j]!.body, msg || rel === "rmw" ? { k: "signal", flag, msg, rel } : { k: "signal", flag });
        this.insertTop(kids[i]!.body, msg ? { k: "wait", flag, msg } : { k: "wait", flag });
      }
    }
  }

  placeSpawns(p: Thread): void {
    const kids = this.threads.filter((c) => c.parent === p.id);
    if (!kids.length) return;
    const body = p.body;
    let at = 0;
    for (const k of kids) at = this.insertTop(body, { k: "spawn", t: k.id }, at) + 1;
    for (const k of kids) this.insertTop(body, { k: "join", t: k.id }, at);
  }
}

/** Generate the program of `seed` under `cfg`. Pure and deterministic. */
export function generate(seed: number, cfg: GenConfig): Program {
  return new Gen(seed, cfg).build();
}
