// Sequential reference execution of a program: spawned children run to
// completion at their spawn point (a legal schedule, since siblings only wait
// on earlier siblings). By construction every schedule gives the same result,
// so this one's result is the expected result.
import type { Expr, Program, RmwOp, Stmt, Width } from "./ir";
import { NLOCALS } from "./ir";
import { SCRATCH_SLOTS } from "./layout";
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
    case "rotl": { const s = b & 31; return ((a << s) | (a >>> ((32 - s) & 31))) | 0; }
    case "eq": return a === b ? 1 : 0;
    case "lt_u": return a >>> 0 < b >>> 0 ? 1 : 0;
  }
  throw new Error(`bad op ${op}`);
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
  const results: { det: number; rsum: bigint }[] = [];
  const logs: [number, bigint][][] = p.threads.map(() => []);

  const call = (f: number, a: number, b: number): number => {
    const h = p.helpers[f]!;
    return ev(h.e, [a, b]);
  };
  const ev = (e: Expr, l: number[]): number => {
    switch (e.k) {
      case "c": return e.v;
      case "l": return l[e.i]!;
      case "bin": return evalBin(e.op, ev(e.a, l), ev(e.b, l));
      case "call": return call(e.f, ev(e.a, l), ev(e.b, l));
      case "sel": return ev(e.c, l) !== 0 ? ev(e.a, l) : ev(e.b, l);
    }
  };

  const runThread = (t: number): void => {
    const th = p.threads[t]!;
    const st = { det: detSeed(t), rsum: 0n, locals: new Array(NLOCALS).fill(0) as number[], scratch: new Array(SCRATCH_SLOTS).fill(0) as number[] };
    const log = logs[t]!;
    const exec = (body: Stmt[]): void => {
      for (const s of body) {
        switch (s.k) {
          case "set": st.locals[s.l] = ev(s.e, st.locals); break;
          case "mix": st.det = mix(st.det, ev(s.e, st.locals)); break;
          case "if": exec(ev(s.c, st.locals) !== 0 ? s.t : s.f); break;
          case "loop": for (let i = 0; i < s.n; i++) exec(s.body); break;
          case "pstore": st.scratch[s.slot] = ev(s.e, st.locals); break;
          case "pload": st.locals[s.l] = st.scratch[s.slot]!; break;
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
          case "signal": flags[s.flag] = 1; break;
          case "wait": if (!flags[s.flag]) throw new Error(`evaluate: wait on flag ${s.flag} before its signal`); break;
        }
      }
    };
    exec(th.body);
    results[t] = { det: st.det, rsum: st.rsum };
  };
  runThread(0);
  return { det: results[0]!.det, rsum: results[0]!.rsum, cells, logs };
}
