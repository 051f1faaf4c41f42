// Sequential reference execution of a program: spawned children run to
// completion at their spawn point (a legal schedule, since siblings only wait
// on earlier siblings). By construction every schedule gives the same result,
// so this one's result is the expected result.
import type { E64, Expr, Mem, Program, RmwOp, Stmt, Width } from "./ir";
import { NLOCALS } from "./ir";
import { SCRATCH_BYTES, writtenWords } from "./layout";
import { detSeed } from "./emit";

const M64 = 0xffffffffffffffffn;
export const widthMask = (w: number): bigint => (w === 64 ? M64 : (1n << BigInt(w)) - 1n);

export function mix(det: number, x: number): number {
  const y = (det ^ x) | 0;
  return Math.imul((y << 5) | (y >>> 27), 0x9e3779b1 | 0);
}

export function evalBin(op: string, a: number, b: number): number {
  switch (op) {
    case "add": return (a + b) | 0;
    case "sub": return (a - b) | 0;
    case "mul": return Math.imul(a, b);
    case "and": return a & b;
    case "or": return a | b;
    case "xor": return a ^ b;
    case "shl": return a << (b & 31);
    case "shr_u": return (a >>> (b & 31)) | 0;
    case "shr_s": return a >> (b & 31);
    case "rotl": { const s = b & 31; return ((a << s) | (a >>> ((32 - s) & 31))) | 0; }
    case "rotr": { const s = b & 31; return ((a >>> s) | (a << ((32 - s) & 31))) | 0; }
    case "eq": return a === b ? 1 : 0;
    case "ne": return a !== b ? 1 : 0;
    case "lt_u": return a >>> 0 < b >>> 0 ? 1 : 0;
    case "lt_s": return (a | 0) < (b | 0) ? 1 : 0;
    case "gt_u": return a >>> 0 > b >>> 0 ? 1 : 0;
    case "gt_s": return (a | 0) > (b | 0) ? 1 : 0;
    case "le_u": return a >>> 0 <= b >>> 0 ? 1 : 0;
    case "le_s": return (a | 0) <= (b | 0) ? 1 : 0;
    case "ge_u": return a >>> 0 >= b >>> 0 ? 1 : 0;
    case "ge_s": return (a | 0) >= (b | 0) ? 1 : 0;
  }
  throw new Error(`bad op ${op}`);
}

export function evalUn(op: string, a: number): number {
  switch (op) {
    case "extend8_s": return (a << 24) >> 24;
    case "extend16_s": return (a << 16) >> 16;
    case "eqz": return a === 0 ? 1 : 0;
    case "clz": return Math.clz32(a);
    case "ctz": return a === 0 ? 32 : 31 - Math.clz32(a & -a);
    case "popcnt": { let n = 0; for (let x = a >>> 0; x; x >>>= 1) n += x & 1; return n; }
  }
  throw new Error(`bad op ${op}`);
}

const U64 = (x: bigint): bigint => BigInt.asUintN(64, x);
const S64 = (x: bigint): bigint => BigInt.asIntN(64, x);

/** i64 binary operators on unsigned 64-bit bigints; comparisons return 0n / 1n. */
export function evalBin64(op: string, a: bigint, b: bigint): bigint {
  const sh = b & 63n;
  switch (op) {
    case "add": return U64(a + b);
    case "sub": return U64(a - b);
    case "mul": return U64(a * b);
    case "and": return a & b;
    case "or": return a | b;
    case "xor": return a ^ b;
    case "shl": return U64(a << sh);
    case "shr_u": return a >> sh;
    case "shr_s": return U64(S64(a) >> sh);
    case "rotl": return U64((a << sh) | (a >> ((64n - sh) & 63n)));
    case "rotr": return U64((a >> sh) | (a << ((64n - sh) & 63n)));
    case "eq": return a === b ? 1n : 0n;
    case "ne": return a !== b ? 1n : 0n;
    case "lt_u": return a < b ? 1n : 0n;
    case "lt_s": return S64(a) < S64(b) ? 1n : 0n;
    case "gt_u": return a > b ? 1n : 0n;
    case "gt_s": return S64(a) > S64(b) ? 1n : 0n;
    case "le_u": return a <= b ? 1n : 0n;
    case "le_s": return S64(a) <= S64(b) ? 1n : 0n;
    case "ge_u": return a >= b ? 1n : 0n;
    case "ge_s": return S64(a) >= S64(b) ? 1n : 0n;
  }
  throw new Error(`bad op ${op}`);
}

export function evalUn64(op: string, a: bigint): bigint {
  switch (op) {
    case "extend8_s": return U64(BigInt.asIntN(8, a));
    case "extend16_s": return U64(BigInt.asIntN(16, a));
    case "extend32_s": return U64(BigInt.asIntN(32, a));
    case "clz": { let n = 0n; for (let i = 63n; i >= 0n && !((a >> i) & 1n); i--) n++; return n; }
    case "ctz": { let n = 0n; for (let i = 0n; i < 64n && !((a >> i) & 1n); i++) n++; return n; }
    case "popcnt": { let n = 0n; for (let x = a; x; x >>= 1n) n += x & 1n; return n; }
  }
  throw new Error(`bad op ${op}`);
}

/** A thread's scratch bytes, little-endian, as wasm sees them. */
export class Scratch {
  readonly b = new Uint8Array(SCRATCH_BYTES);
  /** Raw unsigned value of `bytes` bytes at off. */
  raw(off: number, bytes: number): bigint {
    let v = 0n;
    for (let i = bytes - 1; i >= 0; i--) v = (v << 8n) | BigInt(this.b[off + i]!);
    return v;
  }
  put(off: number, bytes: number, v: bigint): void {
    for (let i = 0; i < bytes; i++) this.b[off + i] = Number((v >> BigInt(8 * i)) & 0xffn);
  }
  /** A load's value: extended (signed or not) from its width to its type, as an unsigned bigint of the type's width. */
  load(m: Mem): bigint {
    const r = this.raw(m.off, m.w / 8);
    const full = m.ty === "i32" ? 32 : 64;
    return m.s ? BigInt.asUintN(full, BigInt.asIntN(m.w, r)) : r;
  }
}



/** Apply an RMW of width `w` (the low `w` bits of the cell) and return [new cell value, returned value]. */
export function applyRmw(cellW: Width, old: bigint, op: RmwOp, w: Width, v: bigint): [bigint, bigint] {
  const m = widthMask(w);
  const lo = old & m;
  const x = v & m;
  let r: bigint;
  switch (op) {
    case "add": r = lo + x; break;
    case "sub": r = lo - x; break;
    case "and": r = lo & x; break;
    case "or": r = lo | x; break;
    case "xor": r = lo ^ x; break;
    case "xchg": r = x; break;
  }
  const next = ((old & ~m) | (r & m)) & widthMask(cellW);
  return [next, lo];
}

export interface Execution {
  /** Final det (root), final rsum (root, as unsigned 64-bit) and final cell values. */
  det: number;
  rsum: bigint;
  cells: bigint[];
  /** Per-thread logged (site, returned value) pairs, in program order. */
  logs: [number, bigint][][];
}

/** The result vector as the runner prints it: `det;rsum;cell0;cell1...` (unsigned decimal). */
export function resultKey(det: number, rsum: bigint, cells: bigint[]): string {
  return [String(det >>> 0), String(BigInt.asUintN(64, rsum)), ...cells.map(String)].join(";");
}

export function evaluate(p: Program): Execution {
  const cells = p.cells.map(() => 0n);
  const flags = new Array(p.flags).fill(0);
  /** Message-passing words per flag, as the signaller wrote them before its release. */
  const mailbox: number[][] = [];
  const results: { det: number; rsum: bigint }[] = [];
  const logs: [number, bigint][][] = p.threads.map(() => []);

  const call = (f: number, a: number, b: number): number => {
    const h = p.helpers[f]!;
    return ev(h.e, [a, b], null, []);
  };
  // Operands evaluate left to right (wasm order); select evaluates all three.
  const ev = (e: Expr, l: number[], mem: Scratch | null, tmp: number[]): number => {
    switch (e.k) {
      case "c": return e.v;
      case "l": return l[e.i]!;
      case "bin": { const a = ev(e.a, l, mem, tmp); return evalBin(e.op, a, ev(e.b, l, mem, tmp)); }
      case "call": { const a = ev(e.a, l, mem, tmp); return call(e.f, a, ev(e.b, l, mem, tmp)); }
      case "sel": { const a = ev(e.a, l, mem, tmp); const b = ev(e.b, l, mem, tmp); return ev(e.c, l, mem, tmp) !== 0 ? a : b; }
      case "un": return evalUn(e.op, ev(e.a, l, mem, tmp));
      case "ld": return Number(BigInt.asIntN(32, mem!.load(e.m)));
      case "t": return tmp[e.v]!;
      case "wrap": return Number(BigInt.asIntN(32, ev64(e.a, l, mem, tmp)));
      case "cmp64": { const a = ev64(e.a, l, mem, tmp); return Number(evalBin64(e.op, a, ev64(e.b, l, mem, tmp))); }
    }
  };
  const ev64 = (e: E64, l: number[], mem: Scratch | null, tmp: number[]): bigint => {
    switch (e.k) {
      case "c": return e.v;
      case "ext": { const x = ev(e.a, l, mem, tmp); return e.s ? U64(BigInt(x | 0)) : BigInt(x >>> 0); }
      case "bin": { const a = ev64(e.a, l, mem, tmp); return evalBin64(e.op, a, ev64(e.b, l, mem, tmp)); }
      case "un": return evalUn64(e.op, ev64(e.a, l, mem, tmp));
      case "ld": return mem!.load(e.m);
    }
  };

  const runThread = (t: number): void => {
    const th = p.threads[t]!;
    const st = { det: detSeed(t), rsum: 0n, locals: new Array(NLOCALS).fill(0) as number[] };
    const mem = new Scratch();
    (th.init ?? []).forEach((w, i) => mem.put(8 * i, 8, w));
    const tmp: number[] = [];
    const E = (e: Expr): number => ev(e, st.locals, mem, tmp);
    const log = logs[t]!;
    const exec = (body: Stmt[]): void => {
      for (const s of body) {
        switch (s.k) {
          case "set": st.locals[s.l] = E(s.e); break;
          case "mix": st.det = mix(st.det, E(s.e)); break;
          case "if": exec(E(s.c) !== 0 ? s.t : s.f); break;
          case "loop": for (let i = 0; i < s.n; i++) exec(s.body); break;
          case "pstore": mem.put(4 * s.slot, 4, BigInt(E(s.e) >>> 0)); break;
          case "pload": st.locals[s.l] = Number(BigInt.asIntN(32, mem.raw(4 * s.slot, 4))); break;
          case "st": mem.put(s.m.off, s.m.w / 8, BigInt(E(s.e) >>> 0)); break;
          case "st64": mem.put(s.m.off, s.m.w / 8, ev64(s.e, st.locals, mem, tmp)); break;
          case "prmw": {
            const bytes = s.m.w / 8;
            const old = mem.raw(s.m.off, bytes);
            const m = widthMask(s.m.w);
            const next = s.op === "cmpxchg" ? (old === (s.exp & m) ? s.v & m : old) : applyRmw(s.m.w, old, s.op, s.m.w, s.v)[0];
            mem.put(s.m.off, bytes, next);
            if (s.use !== "drop") st.locals[s.l] = Number(BigInt.asIntN(32, s.use === "part" ? old & 0xffn : old));
            break;
          }
          case "await": st.locals[s.l] = s.match ? 2 : 1; break;
          case "notify": st.locals[s.l] = 0; break;
          case "fence": break;
          case "fill": mem.b.fill(s.val & 0xff, s.off, s.off + s.len); break;
          case "copy": mem.b.copyWithin(s.dst, s.src, s.src + s.len); break;
          case "let": tmp[s.v] = E(s.e); exec(s.body); break;
          case "yield": break;
          case "rmw": {
            const [next, ret] = applyRmw(p.cells[s.cell]!.w, cells[s.cell]!, s.op, s.w, s.v);
            cells[s.cell] = next;
            log.push([s.site, ret]);
            if (s.use === "sum") st.rsum = BigInt.asUintN(64, st.rsum + ret);
            else if (s.use === "mask") st.det = mix(st.det, Number(BigInt.asIntN(32, ret & s.mask)));
            break;
          }
          case "cas": {
            const m = widthMask(s.w);
            const lo = cells[s.cell]! & m;
            if (lo === 0n) cells[s.cell] = (cells[s.cell]! & ~m) | (s.v & m);
            log.push([s.site, lo]);
            st.rsum = BigInt.asUintN(64, st.rsum + lo);
            break;
          }
          case "casloop": {
            const [next, ret] = applyRmw(p.cells[s.cell]!.w, cells[s.cell]!, "add", s.w, s.v);
            cells[s.cell] = next;
            log.push([s.site, ret]);
            break;
          }
          case "aload": log.push([s.site, cells[s.cell]! & widthMask(s.w)]); break;
          case "locked": {
            const old = cells[s.cell]!;
            cells[s.cell] = BigInt.asUintN(32, old + BigInt(s.v >>> 0));
            log.push([s.site, old]);
            break;
          }
          case "spawn": runThread(s.t); break;
          case "join": {
            const r = results[s.t]!;
            st.det = mix(st.det, r.det);
            st.rsum = BigInt.asUintN(64, st.rsum + r.rsum);
            break;
          }
          case "signal":
            mailbox[s.flag] = [...Array(s.msg ?? 0).keys()].map((k) => (st.det + k) | 0);
            flags[s.flag] = 1;
            break;
          case "wait":
            if (!flags[s.flag]) throw new Error(`evaluate: wait on flag ${s.flag} before its signal`);
            for (const v of (mailbox[s.flag] ?? []).slice(0, s.msg ?? 0)) st.det = mix(st.det, v);
            break;
        }
      }
    };
    exec(th.body);
    for (const w of writtenWords(th.body)) {
      st.det = mix(st.det, Number(BigInt.asIntN(32, mem.raw(8 * w, 4))));
      st.det = mix(st.det, Number(BigInt.asIntN(32, mem.raw(8 * w + 4, 4))));
    }
    results[t] = { det: st.det, rsum: st.rsum };
  };
  runThread(0);
  return { det: results[0]!.det, rsum: results[0]!.rsum, cells, logs };
}
