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
//  - plain loads and stores touch only the thread's own region.
// The expected result is then the result of any one legal sequential execution
// (evaluate.ts runs one).
import { Rng } from "../rng";
import type { GenConfig } from "./config";
import type { BinOp, Cell, Expr, Program, RmwOp, Stmt, Thread, Ty, Width } from "./ir";
import { NLOCALS } from "./ir";
import { MAX_LOG, MAX_THREADS, SCRATCH_SLOTS } from "./layout";

const BINOPS: BinOp[] = ["add", "sub", "mul", "and", "or", "xor", "shl", "shr_u", "rotl", "eq", "lt_u"];
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
  constructor(readonly seed: number, readonly cfg: GenConfig) {
    this.rng = new Rng(seed);
  }

  expr(depth: number, helperLimit = this.helpers.length, nparams = NLOCALS): Expr {
    const r = this.rng.int(0, 9);
    if (depth <= 0 || r < 3) return r < 1 ? { k: "c", v: this.rng.u32() | 0 } : { k: "l", i: this.rng.int(0, nparams - 1) };
    if (r < 8) return { k: "bin", op: this.rng.pick(BINOPS), a: this.expr(depth - 1, helperLimit, nparams), b: this.expr(depth - 1, helperLimit, nparams) };
    if (r < 9 && helperLimit > 0)
      return { k: "call", f: this.rng.int(0, helperLimit - 1), a: this.expr(depth - 1, helperLimit, nparams), b: this.expr(depth - 1, helperLimit, nparams) };
    return { k: "sel", c: this.expr(depth - 1, helperLimit, nparams), a: this.expr(depth - 1, helperLimit, nparams), b: this.expr(depth - 1, helperLimit, nparams) };
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
      const cls = this.rng.pick(classes);
      const widths: Width[] = this.cfg.i64 ? [8, 16, 32, 64] : [8, 16, 32];
      const w: Width = cls === "locked" ? 32 : this.rng.pick(widths);
      const plan: CellPlan = { cell: { cls, w } };
      if (cls === "add" && this.rng.chance(0.5)) plan.uniform = { op: this.rng.pick(["add", "sub"] as RmwOp[]), v: this.value(w) };
      if (cls === "xchg" || cls === "cas") plan.value = this.value(w);
      if (cls === "bits") plan.freeBits = this.rng.shuffle([...Array(w).keys()]);
      if (cls === "locked") {
        const owner = this.rng.pick(parentsWithSiblings).id;
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
    const [p, cell] = this.rng.pick(usable);
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
        const n = Math.min(this.rng.int(1, 3), p.freeBits!.length);
        if (n === 0) return { k: "aload", site, cell, ty: this.tyFor(w), w };
        let bits = 0n;
        for (let i = 0; i < n; i++) bits |= 1n << BigInt(p.freeBits!.pop()!);
        const op = this.rng.pick(["and", "or", "xor"] as RmwOp[]);
        const v = op === "and" ? ~bits & WIDTH_MASK[w] : bits;
        return { k: "rmw", site, cell, op, ty: this.tyFor(w), w, v, use: "mask", mask: bits };
      }
      case "add": {
        if (p.uniform) return { k: "rmw", site, cell, op: p.uniform.op, ty: this.tyFor(w), w, v: p.uniform.v, use: "sum", mask: 0n };
        const r = this.rng.int(0, 9);
        if (r < 2) return { k: "casloop", site, cell, ty: this.tyFor(w), w, v: this.value(w) };
        if (r < 3) return { k: "aload", site, cell, ty: this.tyFor(w), w };
        return { k: "rmw", site, cell, op: this.rng.pick(["add", "sub"] as RmwOp[]), ty: this.tyFor(w), w, v: this.value(w), use: "drop", mask: 0n };
      }
    }
  }

  /** A list of statements; `budget` bounds logged ops (times the loop multiplier `mult`). */
  stmts(t: Thread, n: number, depth: number, mult: number, budget: { log: number }): Stmt[] {
    const out: Stmt[] = [];
    for (let i = 0; i < n; i++) {
      if (this.rng.chance(this.cfg.yieldRate)) out.push({ k: "yield", site: this.site++ });
      const r = this.rng.int(0, 99);
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
        out.push({ k: "if", c, t: this.stmts(t, this.rng.int(1, 3), depth + 1, mult, budget), f: this.stmts(t, this.rng.int(0, 2), depth + 1, mult, budget) });
      } else if (r < 62 && depth < 2) {
        const n2 = this.rng.int(1, 3);
        out.push({ k: "loop", n: n2, body: this.stmts(t, this.rng.int(1, 3), depth + 1, mult * n2, budget) });
      } else if (r < 72) out.push({ k: "set", l: this.rng.int(0, NLOCALS - 1), e: this.expr(3) });
      else if (r < 80) out.push({ k: "pstore", slot: this.rng.int(0, SCRATCH_SLOTS - 1), e: this.expr(2) });
      else if (r < 86) out.push({ k: "pload", slot: this.rng.int(0, SCRATCH_SLOTS - 1), l: this.rng.int(0, NLOCALS - 1) });
      else out.push({ k: "mix", e: this.expr(3) });
    }
    return out;
  }

  build(): Program {
    const cfg = this.cfg;
    const maxT = Math.min(cfg.threads, MAX_THREADS);
    const n = cfg.depth === 0 ? 1 : this.rng.int(Math.min(2, maxT), maxT);
    this.threads.push({ id: 0, parent: -1, depth: 0, body: [] });
    for (let t = 1; t < n; t++) {
      const parents = this.threads.filter((p) => p.depth < cfg.depth);
      const p = this.rng.pick(parents);
      this.threads.push({ id: t, parent: p.id, depth: p.depth + 1, body: [] });
    }
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
      sharedGlobals: cfg.sharedEverything ? this.rng.int(1, 3) : 0,
    };
  }

  insertTop(body: Stmt[], s: Stmt, lo = 0, hi = body.length): number {
    const at = this.rng.int(lo, hi);
    body.splice(at, 0, s);
    return at;
  }

  placeWaits(): void {
    for (const p of this.threads) {
      const kids = this.threads.filter((c) => c.parent === p.id);
      for (let i = 1; i < kids.length; i++) {
        if (!this.rng.chance(0.6)) continue;
        const j = this.rng.int(0, i - 1);
        const flag = this.flags++;
        this.insertTop(kids[j]!.body, { k: "signal", flag });
        this.insertTop(kids[i]!.body, { k: "wait", flag });
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
