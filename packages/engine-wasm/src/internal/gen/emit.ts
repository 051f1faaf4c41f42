// Print a program tree as WebAssembly text (folded form). The text is what
// gets encoded, and it is kept with every artifact for humans.
//
// Imports: env.memory (shared, 1 page), ff.yield(site), ff.spawn(thread).
// Exports: th0..thN-1, each a thread body that ends by publishing det/rsum to
// its region and setting its completion word (atomic store + notify).
import type { E64, Expr, Mem, Program, Stmt, Ty, Width } from "./ir";
import { NLOCALS } from "./ir";
import { cellAddr, doneAddr, flagAddr, lockAddr, mailboxAddr, R_DET, R_LOGN, R_RSUM, R_SCRATCH, regionAddr, writtenWords } from "./layout";

export function rmwName(ty: Ty, w: Width, op: string): string {
  const full = ty === "i32" ? 32 : 64;
  return w === full ? `${ty}.atomic.rmw.${op}` : `${ty}.atomic.rmw${w}.${op}_u`;
}
export function loadName(ty: Ty, w: Width): string {
  const full = ty === "i32" ? 32 : 64;
  return w === full ? `${ty}.atomic.load` : `${ty}.atomic.load${w}_u`;
}
const k32 = (v: bigint | number): string => `(i32.const ${BigInt.asIntN(32, BigInt(v))})`;
const k64 = (v: bigint): string => `(i64.const ${BigInt.asIntN(64, v)})`;
const kTy = (ty: Ty, v: bigint): string => (ty === "i32" ? k32(v) : k64(v));
const to64 = (ty: Ty, x: string): string => (ty === "i32" ? `(i64.extend_i32_u ${x})` : x);
const from64 = (ty: Ty, x: string): string => (ty === "i32" ? `(i32.wrap_i64 ${x})` : x);

/** Load / store instruction names of a scratch access. */
export function memLoadName(m: Mem): string {
  const full = m.ty === "i32" ? 32 : 64;
  if (m.at) return loadName(m.ty, m.w);
  return m.w === full ? `${m.ty}.load` : `${m.ty}.load${m.w}_${m.s ? "s" : "u"}`;
}
export function memStoreName(m: Mem): string {
  const full = m.ty === "i32" ? 32 : 64;
  return `${m.ty}.${m.at ? "atomic." : ""}store${m.w === full ? "" : m.w}`;
}

/** The address operand and memarg of an access to scratch byte `m.off` of a thread whose scratch starts at `base`. */
function at(m: Mem, base: number): string {
  return `${m.moff ? ` offset=${m.moff}` : ""}${m.align ? ` align=${m.align}` : ""} ${k32(base + m.off - (m.moff ?? 0))}`;
}

/** Scratch base address of the thread whose code is being printed (null in helpers). */
function expr(e: Expr, local: (i: number) => string, base: number | null = null): string {
  const X = (x: Expr): string => expr(x, local, base);
  switch (e.k) {
    case "c": return k32(e.v);
    case "l": return `(local.get ${local(e.i)})`;
    case "bin": return `(i32.${e.op} ${X(e.a)} ${X(e.b)})`;
    case "call": return `(call $h${e.f} ${X(e.a)} ${X(e.b)})`;
    case "sel": return `(select ${X(e.a)} ${X(e.b)} ${X(e.c)})`;
    case "un": return `(i32.${e.op} ${X(e.a)})`;
    case "ld": return `(${memLoadName(e.m)}${at(e.m, base!)})`;
    case "t": return `(local.get $t${e.v})`;
    case "wrap": return `(i32.wrap_i64 ${expr64(e.a, local, base!)})`;
    case "cmp64": return `(i64.${e.op} ${expr64(e.a, local, base!)} ${expr64(e.b, local, base!)})`;
  }
}

function expr64(e: E64, local: (i: number) => string, base: number): string {
  const X = (x: E64): string => expr64(x, local, base);
  switch (e.k) {
    case "c": return k64(e.v);
    case "ext": return `(i64.extend_i32_${e.s ? "s" : "u"} ${expr(e.a, local, base)})`;
    case "bin": return `(i64.${e.op} ${X(e.a)} ${X(e.b)})`;
    case "un": return `(i64.${e.op} ${X(e.a)})`;
    case "ld": return `(${memLoadName(e.m)}${at(e.m, base)})`;
  }
}

const spinWait = (addr: number, label: string): string =>
  `(block $${label}b (loop $${label}l (br_if $${label}b (i32.atomic.load ${k32(addr)})) ` +
  `(drop (memory.atomic.wait32 ${k32(addr)} (i32.const 0) (i64.const -1))) (br $${label}l)))`;

/** Initial det of thread t (never 0, so a lost publication of det is visible). */
export const detSeed = (t: number): number => Math.imul(t + 1, 0x2545f491) | 0;

function threadFunc(p: Program, t: number): string {
  const reg = regionAddr(t);
  const local = (i: number): string => `$l${i}`;
  const sb = reg + R_SCRATCH;
  const E = (e: Expr): string => expr(e, local, sb);
  let temps = 0;
  let label = 0;
  const log = (site: number): string => `(call $log ${k32(reg)} ${k32(site)} (local.get $r64))`;
  const out: string[] = [];
  const emit = (body: Stmt[], depth: number, ind: string): void => {
    for (const s of body) {
      const L = `L${label++}`;
      switch (s.k) {
        case "set": out.push(`${ind}(local.set ${local(s.l)} ${E(s.e)})`); break;
        case "mix": out.push(`${ind}(local.set $det (call $mix (local.get $det) ${E(s.e)}))`); break;
        case "if":
          out.push(`${ind}(if ${E(s.c)} (then`);
          emit(s.t, depth + 1, ind + "  ");
          out.push(`${ind}) (else`);
          emit(s.f, depth + 1, ind + "  ");
          out.push(`${ind}))`);
          break;
        case "loop":
          out.push(`${ind}(local.set $c${depth} (i32.const 0))`, `${ind}(loop $${L}`);
          emit(s.body, depth + 1, ind + "  ");
          out.push(`${ind}  (local.set $c${depth} (i32.add (local.get $c${depth}) (i32.const 1)))`);
          out.push(`${ind}  (br_if $${L} (i32.lt_u (local.get $c${depth}) (i32.const ${s.n}))))`);
          break;
        case "pstore": out.push(`${ind}(i32.store ${k32(reg + R_SCRATCH + 4 * s.slot)} ${E(s.e)})`); break;
        case "pload": out.push(`${ind}(local.set ${local(s.l)} (i32.load ${k32(reg + R_SCRATCH + 4 * s.slot)}))`); break;
        case "st": out.push(`${ind}(${memStoreName(s.m)}${at(s.m, sb)} ${E(s.e)})`); break;
        case "st64": out.push(`${ind}(${memStoreName(s.m)}${at(s.m, sb)} ${expr64(s.e, local, sb)})`); break;
        case "prmw": {
          const name = rmwName(s.m.ty, s.m.w, s.op);
          const args = s.op === "cmpxchg" ? `${kTy(s.m.ty, s.exp)} ${kTy(s.m.ty, s.v)}` : kTy(s.m.ty, s.v);
          const call = `(${name}${at(s.m, sb)} ${args})`;
          const v32 = s.m.ty === "i64" ? `(i32.wrap_i64 ${call})` : call;
          if (s.use === "drop") out.push(`${ind}(drop ${call})`);
          else out.push(`${ind}(local.set ${local(s.l)} ${s.use === "part" ? `(i32.and ${v32} (i32.const 255))` : v32})`);
          break;
        }
        case "await": {
          const ld = `(${s.m.ty}.atomic.load${at({ ...s.m, align: undefined }, sb)})`;
          const exp = s.match ? ld : `(${s.m.ty}.add ${ld} (${s.m.ty}.const 1))`;
          out.push(`${ind}(local.set ${local(s.l)} (memory.atomic.wait${s.m.w}${at(s.m, sb)} ${exp} ${k64(s.timeout)}))`);
          break;
        }
        case "notify": out.push(`${ind}(local.set ${local(s.l)} (memory.atomic.notify${at(s.m, sb)} ${k32(s.count)}))`); break;
        case "fence": out.push(`${ind}(atomic.fence)`); break;
        case "fill": out.push(`${ind}(memory.fill ${k32(sb + s.off)} ${k32(s.val)} ${k32(s.len)})`); break;
        case "copy": out.push(`${ind}(memory.copy ${k32(sb + s.dst)} ${k32(sb + s.src)} ${k32(s.len)})`); break;
        case "let":
          temps = Math.max(temps, s.v + 1);
          out.push(`${ind}(local.set $t${s.v} ${E(s.e)})`);
          emit(s.body, depth, ind);
          break;
        case "yield": out.push(`${ind}(call $yield ${k32(s.site)})`); break;
        case "rmw": {
          out.push(`${ind}(local.set $r64 ${to64(s.ty, `(${rmwName(s.ty, s.w, s.op)} ${k32(cellAddr(s.cell))} ${kTy(s.ty, s.v)})`)})`);
          out.push(ind + log(s.site));
          if (s.use === "sum") out.push(`${ind}(local.set $rsum (i64.add (local.get $rsum) (local.get $r64)))`);
          if (s.use === "mask") out.push(`${ind}(local.set $det (call $mix (local.get $det) (i32.wrap_i64 (i64.and (local.get $r64) ${k64(s.mask)}))))`);
          break;
        }
        case "cas":
          out.push(`${ind}(local.set $r64 ${to64(s.ty, `(${rmwName(s.ty, s.w, "cmpxchg")} ${k32(cellAddr(s.cell))} ${kTy(s.ty, 0n)} ${kTy(s.ty, s.v)})`)})`);
          out.push(ind + log(s.site), `${ind}(local.set $rsum (i64.add (local.get $rsum) (local.get $r64)))`);
          break;
        case "casloop": {
          const a = k32(cellAddr(s.cell));
          out.push(`${ind}(block $${L}b (loop $${L}l`);
          out.push(`${ind}  (local.set $o64 ${to64(s.ty, `(${loadName(s.ty, s.w)} ${a})`)})`);
          const cas = `(${rmwName(s.ty, s.w, "cmpxchg")} ${a} ${from64(s.ty, "(local.get $o64)")} ${from64(s.ty, `(i64.add (local.get $o64) ${k64(s.v)})`)})`;
          out.push(`${ind}  (br_if $${L}b (i64.eq (local.get $o64) ${to64(s.ty, cas)}))`);
          out.push(`${ind}  (call $yield ${k32(s.site)}) (br $${L}l)))`);
          out.push(`${ind}(local.set $r64 (local.get $o64))`, ind + log(s.site));
          break;
        }
        case "aload":
          out.push(`${ind}(local.set $r64 ${to64(s.ty, `(${loadName(s.ty, s.w)} ${k32(cellAddr(s.cell))})`)})`, ind + log(s.site));
          break;
        case "locked": {
          const lk = k32(lockAddr(s.lock));
          const a = k32(cellAddr(s.cell));
          out.push(`${ind}(block $${L}b (loop $${L}l (br_if $${L}b (i32.eqz (i32.atomic.rmw.cmpxchg ${lk} (i32.const 0) (i32.const 1)))) (call $yield ${k32(s.site)}) (br $${L}l)))`);
          out.push(`${ind}(local.set $r32 (i32.atomic.load ${a}))`);
          out.push(`${ind}(i32.atomic.store ${a} (i32.add (local.get $r32) ${k32(s.v)}))`);
          out.push(`${ind}(i32.atomic.store ${lk} (i32.const 0))`);
          out.push(`${ind}(local.set $r64 (i64.extend_i32_u (local.get $r32)))`, ind + log(s.site));
          break;
        }
        case "spawn": out.push(`${ind}(call $spawn ${k32(s.t)})`); break;
        case "join": {
          const cr = regionAddr(s.t);
          out.push(ind + spinWait(doneAddr(s.t), L));
          out.push(`${ind}(local.set $det (call $mix (local.get $det) (i32.load ${k32(cr + R_DET)})))`);
          out.push(`${ind}(local.set $rsum (i64.add (local.get $rsum) (i64.load ${k32(cr + R_RSUM)})))`);
          break;
        }
        case "signal":
          for (let k = 0; k < (s.msg ?? 0); k++) out.push(`${ind}(i32.store ${k32(mailboxAddr(s.flag) + 4 * k)} (i32.add (local.get $det) (i32.const ${k})))`);
          if (s.rel === "rmw") out.push(`${ind}(drop (i32.atomic.rmw.or ${k32(flagAddr(s.flag))} (i32.const 1)))`);
          else out.push(`${ind}(i32.atomic.store ${k32(flagAddr(s.flag))} (i32.const 1))`);
          out.push(`${ind}(drop (memory.atomic.notify ${k32(flagAddr(s.flag))} (i32.const 1)))`);
          break;
        case "wait":
          out.push(ind + spinWait(flagAddr(s.flag), L));
          for (let k = 0; k < (s.msg ?? 0); k++) out.push(`${ind}(local.set $det (call $mix (local.get $det) (i32.load ${k32(mailboxAddr(s.flag) + 4 * k)})))`);
          break;
      }
    }
  };
  emit(p.threads[t]!.body, 0, "    ");
  // Everything the thread stored flows into its result.
  for (const w of writtenWords(p.threads[t]!.body))
    for (const half of [0, 4]) out.push(`    (local.set $det (call $mix (local.get $det) (i32.load ${k32(sb + 8 * w + half)})))`);
  const locals = [...Array(NLOCALS).keys()].map((i) => `(local $l${i} i32)`).join(" ") + [...Array(temps).keys()].map((i) => ` (local $t${i} i32)`).join("");
  return [
    `  (func $th${t} (export "th${t}")`,
    `    ${locals} (local $det i32) (local $rsum i64) (local $r64 i64) (local $r32 i32) (local $o64 i64) (local $c0 i32) (local $c1 i32) (local $c2 i32)`,
    `    (global.set $li (i32.const 0))`,
    `    (local.set $det ${k32(detSeed(t))})`,
    ...(p.threads[t]!.init ?? []).map((w, i) => `    (i64.store ${k32(reg + R_SCRATCH + 8 * i)} ${k64(w)})`),
    ...out,
    `    (i32.store ${k32(reg + R_LOGN)} (global.get $li))`,
    `    (i64.store ${k32(reg + R_RSUM)} (local.get $rsum))`,
    `    (i32.store ${k32(reg + R_DET)} (local.get $det))`,
    `    (i32.atomic.store ${k32(doneAddr(t))} (i32.const 1))`,
    `    (drop (memory.atomic.notify ${k32(doneAddr(t))} (i32.const 1))))`,
  ].join("\n");
}

/** The module text of a program. */
export function emitWat(p: Program): string {
  const parts: string[] = [
    `;; FuzzFarm wasm program seed=${p.seed} threads=${p.threads.length} cells=${p.cells.map((c) => `${c.cls}/${c.w}`).join(",")}`,
    `(module`,
    `  (import "env" "memory" (memory 1 1 shared))`,
    `  (import "ff" "yield" (func $yield (param i32)))`,
    `  (import "ff" "spawn" (func $spawn (param i32)))`,
    `  (global $li (mut i32) (i32.const 0))`,
  ];
  // Shared-everything threads, in the form Binaryen 123 parses and validates: a shared
  // struct type and globals holding shared references (shared numeric globals do not parse yet).
  if (p.sharedGlobals) parts.push(`  (type $ffs (shared (struct (field (mut i32)))))`);
  for (let g = 0; g < p.sharedGlobals; g++) parts.push(`  (global $sg${g} (mut (ref null $ffs)) (ref.null $ffs))`);
  parts.push(`  (func $mix (param i32 i32) (result i32) (i32.mul (i32.rotl (i32.xor (local.get 0) (local.get 1)) (i32.const 5)) (i32.const -1640531535)))`);
  parts.push(
    `  (func $log (param $base i32) (param $site i32) (param $v i64) (local $a i32)`,
    `    (local.set $a (i32.add (local.get $base) (i32.add (i32.const 512) (i32.shl (global.get $li) (i32.const 4)))))`,
    `    (i32.store (local.get $a) (local.get $site)) (i64.store offset=8 (local.get $a) (local.get $v))`,
    `    (global.set $li (i32.add (global.get $li) (i32.const 1))))`,
  );
  p.helpers.forEach((h, i) => parts.push(`  (func $h${i} (param i32 i32) (result i32) ${expr(h.e, (j) => String(j))})`));
  for (let t = 0; t < p.threads.length; t++) parts.push(threadFunc(p, t));
  if (p.sharedGlobals)
    parts.push(`  (func (export "sg_touch") (result i32) (global.set $sg0 (struct.new $ffs (i32.const 7))) (struct.get $ffs 0 (ref.as_non_null (global.get $sg0))))`);
  parts.push(`)`);
  return parts.join("\n");
}
