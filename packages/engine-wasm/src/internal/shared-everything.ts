// Shared-everything threads, run for real on an engine that implements them
// (Deno 2.9's V8 15.0 with --experimental-wasm-shared). A generated program
// with the generator's `sharedEverything` flag (p.sharedGlobals > 0) is lowered
// as follows: its ordinary part (threads, memory atomics, waits, spawns) goes
// through the usual pipeline (wabt encoding, optimizer, faults, yield
// instrumentation), then this module adds, in Binaryen's text syntax:
//   - a shared struct type $ffs {mut i32, mut i64, mut i8, mut i16} and a shared
//     array type $ffa (mut i32), globals holding shared references to them;
//   - per thread, a function $se_tN: struct.new into a global, a seeded sequence of
//     struct.atomic.rmw.{add,sub,and,or,xor,xchg,cmpxchg} (i32 and i64 fields),
//     struct.atomic.set / get_s / get_u on packed fields, array.new / set / get,
//     with an ff.yield schedule point between operations; it returns a digest of
//     the final field values;
//   - a wrapper exported as thN that adds that digest to a shared memory word
//     (i64.atomic.rmw.add: order-independent) and then runs the thread's body.
// The result vector gains that word, and its expected value is computed here by
// evaluating the same operation sequence, so the program's result stays known by
// construction and every oracle (schedule, tier, engine, optimizer) applies.
// What V8 15.0 does not do yet (README): shared globals (`shared globals are not
// supported yet`), so a shared reference cannot be stored where two threads see
// it; and Deno cannot post a shared struct to a worker (`shared value could not be
// cloned`); each thread therefore works on its own shared objects.
import type { Program } from "./gen/ir";
import { cellAddr, regionAddr } from "./gen/layout";
import { createRng } from "@fuzzfarm/rng";
import { subSeed } from "./sub-seed";

/** The memory word the threads add their shared-everything digests to (below the first thread region). */
export const SE_WORD = regionAddr(0) - 8;

type Op =
  | { k: "rmw32"; op: string; v: number }
  | { k: "rmw64"; op: string; v: bigint }
  | { k: "cas32"; exp: number; v: number }
  | { k: "set8"; v: number }
  | { k: "set16"; v: number }
  | { k: "aset"; i: number; v: number };

interface ThreadPlan {
  init: [number, bigint, number, number];
  len: number;
  fill: number;
  ops: Op[];
}

export interface SharedEverythingPlan {
  globals: number;
  threads: ThreadPlan[];
  /** Sum of the threads' digests (mod 2^64): the value of SE_WORD after a run. */
  total: bigint;
}

const M32 = 0xffffffffn;
const M64 = (1n << 64n) - 1n;
const RMW = ["add", "sub", "and", "or", "xor", "xchg"] as const;

function apply(op: string, a: bigint, b: bigint, mask: bigint): bigint {
  switch (op) {
    case "add": return (a + b) & mask;
    case "sub": return (a - b) & mask;
    case "and": return a & b;
    case "or": return a | b;
    case "xor": return a ^ b;
    default: return b & mask; // xchg
  }
}

/** The operations and expected digest of each thread (seeded by the program's seed). */
export function planSharedEverything(p: Program): SharedEverythingPlan {
  if (cellAddr(p.cells.length) > SE_WORD) throw new Error(`shared-everything: ${p.cells.length} cells reach the digest word`);
  const threads: ThreadPlan[] = [];
  let total = 0n;
  for (let t = 0; t < p.threads.length; t++) {
    const r = createRng(subSeed(p.seed, 0x5e, t));
    const init: ThreadPlan["init"] = [r.between(0, 0x7fffffff), BigInt(r.between(0, 0x7fffffff)) << 16n, r.between(0, 255), r.between(0, 65535)];
    const len = r.between(1, 6);
    const fill = r.between(0, 1000);
    const ops: Op[] = [];
    const n = r.between(2, 8);
    for (let i = 0; i < n; i++) {
      const c = r.between(0, 5);
      if (c === 0) ops.push({ k: "rmw32", op: RMW[r.between(0, RMW.length - 1)]!, v: r.between(0, 0x7fffffff) });
      else if (c === 1) ops.push({ k: "rmw64", op: RMW[r.between(0, RMW.length - 1)]!, v: (BigInt(r.between(0, 0x7fffffff)) << 20n) | BigInt(r.between(0, 0xfffff)) });
      else if (c === 2) ops.push({ k: "cas32", exp: r.between(0, 1) ? -1 : r.between(0, 100), v: r.between(0, 0x7fffffff) });
      else if (c === 3) ops.push({ k: "set8", v: r.between(0, 255) });
      else if (c === 4) ops.push({ k: "set16", v: r.between(0, 65535) });
      else ops.push({ k: "aset", i: r.between(0, len - 1), v: r.between(0, 0x7fffffff) });
    }
    threads.push({ init, len, fill, ops });
    total = (total + digest({ init, len, fill, ops })) & M64;
  }
  return { globals: Math.max(1, p.sharedGlobals), threads, total };
}

/** Sequential evaluation of one thread's operations: the digest its function returns. */
function digest(tp: ThreadPlan): bigint {
  let f0 = BigInt(tp.init[0]), f1 = tp.init[1], f2 = BigInt(tp.init[2]), f3 = BigInt(tp.init[3]);
  const arr = Array<bigint>(tp.len).fill(BigInt(tp.fill));
  for (const o of tp.ops) {
    if (o.k === "rmw32") f0 = apply(o.op, f0, BigInt(o.v), M32);
    else if (o.k === "rmw64") f1 = apply(o.op, f1, o.v, M64);
    else if (o.k === "cas32") { const exp = o.exp < 0 ? f0 : BigInt(o.exp); if (f0 === exp) f0 = BigInt(o.v); }
    else if (o.k === "set8") f2 = BigInt(o.v);
    else if (o.k === "set16") f3 = BigInt(o.v);
    else arr[o.i] = BigInt(o.v);
  }
  const s8 = f2 >= 128n ? f2 - 256n : f2; // get_s
  let d = (f0 + f1 + s8 + f3) & M64;
  for (const a of arr) d = (d * 31n + a) & M64;
  return d;
}

/**
 * Add the plan's shared-everything code to a module's linear text (after instrumentation):
 * the thread exports thN move to wrappers that first run $se_tN. The text must then be
 * encoded by Binaryen (wasm-tools encodeWatBinaryen): wabt does not parse shared types.
 */
export function addSharedEverything(text: string, plan: SharedEverythingPlan): string {
  const body: string[] = [
    `  (type $ffs (shared (struct (field (mut i32)) (field (mut i64)) (field (mut i8)) (field (mut i16)))))`,
    `  (type $ffa (shared (array (mut i32))))`,
  ];
  for (let g = 0; g < plan.globals; g++) body.push(`  (global $sg${g} (mut (ref null $ffs)) (ref.null $ffs))`, `  (global $sa${g} (mut (ref null $ffa)) (ref.null $ffa))`);
  let out = text;
  plan.threads.forEach((tp, t) => {
    const ex = new RegExp(`\\(export "th${t}" \\(func (\\$[^)\\s]+)\\)\\)`);
    const m = ex.exec(out);
    if (!m) throw new Error(`shared-everything: no export th${t} in the module text`);
    out = out.replace(ex, "");
    const g = t % plan.globals;
    const S = `(ref.as_non_null (global.get $sg${g}))`;
    const A = `(ref.as_non_null (global.get $sa${g}))`;
    const lines = [
      `  (func $se_t${t} (result i64)`,
      `    (global.set $sg${g} (struct.new $ffs (i32.const ${tp.init[0]}) (i64.const ${tp.init[1]}) (i32.const ${tp.init[2]}) (i32.const ${tp.init[3]})))`,
      `    (global.set $sa${g} (array.new $ffa (i32.const ${tp.fill}) (i32.const ${tp.len})))`,
    ];
    tp.ops.forEach((o, i) => {
      lines.push(`    (call $ff.yield (i32.const ${9000 + t * 100 + i}))`);
      if (o.k === "rmw32") lines.push(`    (drop (struct.atomic.rmw.${o.op} seqcst $ffs 0 ${S} (i32.const ${o.v})))`);
      else if (o.k === "rmw64") lines.push(`    (drop (struct.atomic.rmw.${o.op} seqcst $ffs 1 ${S} (i64.const ${o.v})))`);
      else if (o.k === "cas32") lines.push(`    (drop (struct.atomic.rmw.cmpxchg seqcst $ffs 0 ${S} ${o.exp < 0 ? `(struct.atomic.get seqcst $ffs 0 ${S})` : `(i32.const ${o.exp})`} (i32.const ${o.v})))`);
      else if (o.k === "set8") lines.push(`    (struct.atomic.set seqcst $ffs 2 ${S} (i32.const ${o.v}))`);
      else if (o.k === "set16") lines.push(`    (struct.atomic.set acqrel $ffs 3 ${S} (i32.const ${o.v}))`);
      else lines.push(`    (array.set $ffa ${A} (i32.const ${o.i}) (i32.const ${o.v}))`);
    });
    let d = `(i64.add (i64.add (i64.extend_i32_u (struct.atomic.get seqcst $ffs 0 ${S})) (struct.atomic.get acqrel $ffs 1 ${S})) (i64.add (i64.extend_i32_s (struct.atomic.get_s seqcst $ffs 2 ${S})) (i64.extend_i32_u (struct.atomic.get_u seqcst $ffs 3 ${S}))))`;
    for (let i = 0; i < tp.len; i++) d = `(i64.add (i64.mul ${d} (i64.const 31)) (i64.extend_i32_u (array.get $ffa ${A} (i32.const ${i}))))`;
    lines.push(`    ${d})`);
    lines.push(`  (func $se_th${t} (export "th${t}") (drop (i64.atomic.rmw.add (i32.const ${SE_WORD}) (call $se_t${t}))) (call ${m[1]}))`);
    body.push(...lines);
  });
  const end = out.lastIndexOf(")");
  return `${out.slice(0, end)}\n${body.join("\n")})\n`;
}
