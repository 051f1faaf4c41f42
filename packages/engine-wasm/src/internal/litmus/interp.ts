// Reference interpreter for small litmus modules: enumerates every sequentially
// consistent interleaving of t0..tN-1 at memory-access granularity (each load,
// store, RMW, plain or atomic, is one atomic step; thread-local code and calls
// of the module's own functions run between steps), with
// memoized states, and collects the outcomes (`final` run on each final memory).
// Returns null when the module uses something outside the supported subset or
// the state space exceeds the limit: then it is "not small enough".
import type { Func, Instr, LinearModule } from "./parse";

type Val = number | bigint;
interface Frame { f: Func; pc: number; stack: Val[]; locals: Val[]; ctl: { instr: number; height: number; loop: boolean; arity: number }[] }
/** `calls`: the frames of the callers of `frame` (innermost last). */
interface ThreadState { frame: Frame; calls: Frame[]; done: boolean; results: Val[]; funcs: Map<string, Func> }

class Unsupported extends Error {}

const MASK = { 8: 0xffn, 16: 0xffffn, 32: 0xffffffffn, 64: 0xffffffffffffffffn } as Record<number, bigint>;

function memInfo(op: string): { ty: "i32" | "i64"; kind: string; bytes: number; signed: boolean; rmw?: string } | null {
  let m = /^(i32|i64)\.(?:atomic\.)?(load|store)(8|16|32)?(?:_(s|u))?$/.exec(op);
  if (m) return { ty: m[1] as "i32" | "i64", kind: m[2]!, bytes: (m[3] ? Number(m[3]) : m[1] === "i32" ? 32 : 64) / 8, signed: m[4] === "s" };
  m = /^(i32|i64)\.atomic\.rmw(8|16|32)?\.(add|sub|and|or|xor|xchg|cmpxchg)(?:_u)?$/.exec(op);
  if (m) return { ty: m[1] as "i32" | "i64", kind: "rmw", bytes: (m[2] ? Number(m[2]) : m[1] === "i32" ? 32 : 64) / 8, signed: false, rmw: m[3] };
  return null;
}

export function isAtomicOp(op: string): boolean {
  return /\.atomic\./.test(op);
}

export interface Enumeration { allowed: string[]; states: number }

export function enumerateOutcomes(mod: LinearModule, threads: string[], finalName: string | null, limit = 200_000): Enumeration | null {
  const funcs = threads.map((n) => mod.funcs.get(mod.exports.get(n)!)!);
  const fin = finalName ? mod.funcs.get(mod.exports.get(finalName)!)! : null;
  try {
    const init: ThreadState[] = funcs.map((f) => ({ frame: newFrame(f), calls: [], done: false, results: [], funcs: mod.funcs }));
    const mem = new Map<number, number>();
    init.forEach((t) => runLocal(t, mem));
    const seen = new Set<string>();
    const allowed = new Set<string>();
    const stack: { ts: ThreadState[]; mem: Map<number, number> }[] = [{ ts: init, mem }];
    while (stack.length) {
      const { ts, mem } = stack.pop()!;
      const key = stateKey(ts, mem);
      if (seen.has(key)) continue;
      seen.add(key);
      if (seen.size > limit) return null;
      if (ts.every((t) => t.done)) {
        let out = ts.map((t) => t.results.map((v) => String(Number(BigInt.asIntN(32, BigInt(v))))).join(",")).join(";");
        if (fin) {
          const ft: ThreadState = { frame: newFrame(fin), calls: [], done: false, results: [], funcs: mod.funcs };
          const m2 = new Map(mem);
          for (let n = 0; !ft.done; n++) { if (n > 100000) throw new Unsupported("final does not end"); stepMem(ft, m2); runLocal(ft, m2); }
          out += "|" + ft.results.map((v) => String(Number(BigInt.asIntN(32, BigInt(v))))).join(",");
        }
        allowed.add(out);
        continue;
      }
      ts.forEach((t, i) => {
        if (t.done) return;
        const ts2 = ts.map((x, j) => (j === i ? cloneThread(x) : x));
        const m2 = new Map(mem);
        stepMem(ts2[i]!, m2);
        runLocal(ts2[i]!, m2);
        stack.push({ ts: ts2, mem: m2 });
      });
    }
    return { allowed: [...allowed].sort(), states: seen.size };
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
}

function newFrame(f: Func): Frame {
  const locals: Val[] = [...f.params, ...f.locals].map((t) => (t === "i64" ? 0n : 0));
  if (f.params.length) throw new Unsupported("thread functions take no parameters");
  return { f, pc: 0, stack: [], locals, ctl: [] };
}
const cloneFrame = (fr: Frame): Frame => ({ f: fr.f, pc: fr.pc, stack: [...fr.stack], locals: [...fr.locals], ctl: fr.ctl.map((c) => ({ ...c })) });
function cloneThread(t: ThreadState): ThreadState {
  return { done: t.done, results: [...t.results], frame: cloneFrame(t.frame), calls: t.calls.map(cloneFrame), funcs: t.funcs };
}
const frameKey = (fr: Frame): string => `${fr.f.name}@${fr.pc}/${fr.stack.join(",")}/${fr.locals.join(",")}/${fr.ctl.length}`;
function stateKey(ts: ThreadState[], mem: Map<number, number>): string {
  const m = [...mem.entries()].filter(([, v]) => v !== 0).sort((a, b) => a[0] - b[0]).map((e) => e.join(":")).join(",");
  return ts.map((t) => (t.done ? `D${t.results.join(",")}` : [...t.calls, t.frame].map(frameKey).join(">"))).join("|") + "#" + m;
}

const isMemOp = (op: string): boolean => memInfo(op) !== null || op === "memory.atomic.notify" || op === "atomic.fence";

/** Run thread-local instructions until the next memory instruction or the end. */
function runLocal(t: ThreadState, mem: Map<number, number>): void {
  for (let n = 0; !t.done; n++) {
    if (n > 100000) throw new Unsupported("local code does not reach a memory access");
    const fr = t.frame;
    if (fr.pc >= fr.f.body.length) { ret(t); continue; }
    const ins = fr.f.body[fr.pc]!;
    if (isMemOp(ins.op)) return;
    exec(t, ins, mem);
  }
}
function stepMem(t: ThreadState, mem: Map<number, number>): void {
  const fr = t.frame;
  if (fr.pc >= fr.f.body.length) { ret(t); return; }
  exec(t, fr.f.body[fr.pc]!, mem);
}
/** The current function ends: back to its caller with its results, or the thread is done. */
function ret(t: ThreadState): void {
  const n = t.frame.f.results.length;
  const results = t.frame.stack.slice(t.frame.stack.length - n);
  const caller = t.calls.pop();
  if (caller) {
    caller.stack.push(...results);
    t.frame = caller;
    return;
  }
  t.results = results;
  t.done = true;
}

const i32 = (v: Val): number => Number(BigInt.asIntN(32, BigInt(v)));
const i64 = (v: Val): bigint => BigInt.asIntN(64, BigInt(v));

function read(mem: Map<number, number>, a: number, bytes: number): bigint {
  let v = 0n;
  for (let i = bytes - 1; i >= 0; i--) v = (v << 8n) | BigInt(mem.get(a + i) ?? 0);
  return v;
}
function write(mem: Map<number, number>, a: number, bytes: number, v: bigint): void {
  for (let i = 0; i < bytes; i++) mem.set(a + i, Number((v >> BigInt(8 * i)) & 0xffn));
}

function branch(t: ThreadState, target: string): void {
  const fr = t.frame;
  let depth: number;
  if (/^\d+$/.test(target)) depth = Number(target);
  else {
    depth = -1;
    for (let d = 0; d < fr.ctl.length; d++) if (fr.f.body[fr.ctl[fr.ctl.length - 1 - d]!.instr]!.label === target) { depth = d; break; }
    if (depth < 0) throw new Unsupported(`branch to ${target}`);
  }
  if (depth >= fr.ctl.length) { fr.pc = fr.f.body.length; return; }
  const c = fr.ctl[fr.ctl.length - 1 - depth]!;
  const blk = fr.f.body[c.instr]!;
  if (c.loop) {
    fr.stack.length = c.height;
    fr.ctl.length = fr.ctl.length - depth;
    fr.pc = c.instr + 1;
  } else {
    const vals = fr.stack.slice(fr.stack.length - c.arity);
    fr.stack.length = c.height;
    fr.stack.push(...vals);
    fr.ctl.length = fr.ctl.length - depth - 1;
    fr.pc = blk.end! + 1;
  }
}

function exec(t: ThreadState, ins: Instr, mem: Map<number, number>): void {
  const fr = t.frame;
  const s = fr.stack;
  const pop = (): Val => { if (!s.length) throw new Unsupported("stack underflow"); return s.pop()!; };
  fr.pc++;
  const op = ins.op;
  const mi = memInfo(op);
  if (mi) {
    const off = Number(/offset=(\d+)/.exec(ins.args.join(" "))?.[1] ?? 0);
    const mask = MASK[mi.bytes * 8]!;
    const wrap = (v: bigint): Val => (mi.ty === "i32" ? i32(v) : i64(v));
    if (mi.kind === "load") {
      const a = (i32(pop()) >>> 0) + off;
      let v = read(mem, a, mi.bytes);
      if (mi.signed) v = BigInt.asIntN(mi.bytes * 8, v);
      s.push(wrap(v));
    } else if (mi.kind === "store") {
      const v = BigInt(pop());
      const a = (i32(pop()) >>> 0) + off;
      write(mem, a, mi.bytes, v & mask);
    } else if (mi.rmw === "cmpxchg") {
      const rep = BigInt(pop()) & mask, exp = BigInt(pop()) & mask;
      const a = (i32(pop()) >>> 0) + off;
      const old = read(mem, a, mi.bytes);
      if (old === exp) write(mem, a, mi.bytes, rep);
      s.push(wrap(old));
    } else {
      const v = BigInt(pop()) & mask;
      const a = (i32(pop()) >>> 0) + off;
      const old = read(mem, a, mi.bytes);
      const r = { add: old + v, sub: old - v, and: old & v, or: old | v, xor: old ^ v, xchg: v }[mi.rmw as "add"]!;
      write(mem, a, mi.bytes, r & mask);
      s.push(wrap(old));
    }
    return;
  }
  const [ty, name] = op.includes(".") ? [op.slice(0, op.indexOf(".")), op.slice(op.indexOf(".") + 1)] : ["", op];
  switch (op) {
    case "nop": return;
    case "drop": pop(); return;
    case "memory.atomic.notify": pop(); pop(); s.push(0); return;
    case "atomic.fence": return;
    case "select": { const c = i32(pop()); const b = pop(); const a = pop(); s.push(c ? a : b); return; }
    case "local.get": s.push(fr.locals[localIndex(fr.f, ins.args[0]!)]!); return;
    case "local.set": fr.locals[localIndex(fr.f, ins.args[0]!)] = pop(); return;
    case "local.tee": fr.locals[localIndex(fr.f, ins.args[0]!)] = s[s.length - 1]!; return;
    case "i32.const": s.push(i32(BigInt(ins.args[0]!))); return;
    case "i64.const": s.push(i64(BigInt(ins.args[0]!))); return;
    case "block": case "loop": fr.ctl.push({ instr: fr.pc - 1, height: s.length, loop: op === "loop", arity: op === "loop" ? 0 : ins.arity! }); return;
    case "if": {
      const c = i32(pop());
      fr.ctl.push({ instr: fr.pc - 1, height: s.length, loop: false, arity: ins.arity! });
      if (!c) { if (ins.els! >= 0) fr.pc = ins.els! + 1; else { fr.ctl.pop(); fr.pc = ins.end! + 1; } }
      return;
    }
    case "else": { const c = fr.ctl.pop()!; fr.pc = fr.f.body[c.instr]!.end! + 1; return; }
    case "end": fr.ctl.pop(); return;
    case "br": branch(t, ins.args[0]!); return;
    case "br_if": if (i32(pop())) branch(t, ins.args[0]!); return;
    case "return": { const n = fr.f.results.length; const v = s.slice(s.length - n); s.length = 0; s.push(...v); fr.pc = fr.f.body.length; return; }
    case "call": {
      const callee = t.funcs.get(ins.args[0]!);
      if (!callee) throw new Unsupported(`call ${ins.args[0]}`);
      if (t.calls.length >= 64) throw new Unsupported("call depth");
      const args: Val[] = [];
      for (let i = 0; i < callee.params.length; i++) args.unshift(pop());
      t.calls.push(fr);
      t.frame = { f: callee, pc: 0, stack: [], locals: [...args, ...callee.locals.map((ty) => (ty === "i64" ? 0n : 0))], ctl: [] };
      return;
    }
    case "i32.wrap_i64": s.push(i32(pop())); return;
    case "i64.extend_i32_u": s.push(BigInt(i32(pop()) >>> 0)); return;
    case "i64.extend_i32_s": s.push(BigInt(i32(pop()))); return;
  }
  if ((ty === "i32" || ty === "i64") && name) {
    const big = ty === "i64";
    const W = big ? 64 : 32;
    const norm = (v: bigint): Val => (big ? i64(v) : i32(v));
    const U = (v: Val) => BigInt.asUintN(W, BigInt(v));
    const S = (v: Val) => BigInt.asIntN(W, BigInt(v));
    if (name === "eqz") { s.push(BigInt(pop()) === 0n ? 1 : 0); return; }
    const b = pop(), a = pop();
    const sh = U(b) % BigInt(W);
    const bool = (x: boolean) => s.push(x ? 1 : 0);
    switch (name) {
      case "add": s.push(norm(S(a) + S(b))); return;
      case "sub": s.push(norm(S(a) - S(b))); return;
      case "mul": s.push(norm(S(a) * S(b))); return;
      case "and": s.push(norm(U(a) & U(b))); return;
      case "or": s.push(norm(U(a) | U(b))); return;
      case "xor": s.push(norm(U(a) ^ U(b))); return;
      case "shl": s.push(norm(U(a) << sh)); return;
      case "shr_u": s.push(norm(U(a) >> sh)); return;
      case "shr_s": s.push(norm(S(a) >> sh)); return;
      case "eq": bool(U(a) === U(b)); return;
      case "ne": bool(U(a) !== U(b)); return;
      case "lt_s": bool(S(a) < S(b)); return;
      case "lt_u": bool(U(a) < U(b)); return;
      case "gt_s": bool(S(a) > S(b)); return;
      case "gt_u": bool(U(a) > U(b)); return;
      case "le_s": bool(S(a) <= S(b)); return;
      case "le_u": bool(U(a) <= U(b)); return;
      case "ge_s": bool(S(a) >= S(b)); return;
      case "ge_u": bool(U(a) >= U(b)); return;
    }
  }
  throw new Unsupported(`instruction ${op}`);
}

function localIndex(f: Func, ref: string): number {
  if (/^\d+$/.test(ref)) return Number(ref);
  const i = f.localNames.get(ref);
  if (i === undefined) throw new Unsupported(`local ${ref}`);
  return i;
}
