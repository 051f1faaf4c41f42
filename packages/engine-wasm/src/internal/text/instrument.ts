// Yield-point instrumentation: before every memory access (plain and atomic)
// of every function, a call ff.yield_mem(effective address, site*4 + kind)
// (kind 1 read, 2 write or read-modify-write), so schedulers can see which
// accesses conflict. memory.atomic.wait32/64 are wrapped in helpers that tell
// the scheduler "about to block on addr/expected" and "woke up";
// memory.atomic.notify gets no yield point, so a store and the notify that
// follows it stay together. Sites are numbered from SITE_BASE.
import { addFields, isAtomicAccess, isPlainAccess, isWait, offsetOf, opcode, parseLine } from "./linear";

export const SITE_BASE = 10000;

export interface Instrumented {
  text: string;
  /** Site id -> `func opcode`, for traces. */
  sites: Map<number, string>;
}

/** Value operands (after the address) of a memory instruction, top of stack last. */
function operands(op: string): string[] {
  const ty = op.slice(0, 3);
  if (/\.load/.test(op)) return [];
  if (/cmpxchg/.test(op)) return [ty, ty];
  return [ty]; // store, rmw
}

export function instrument(linear: string): Instrumented {
  const out: string[] = [];
  const sites = new Map<number, string>();
  const waitHelpers = new Map<string, string>();
  let site = SITE_BASE;
  let func = "";
  for (const raw of linear.split("\n")) {
    const fm = /^(\s*)\(func (\$\S+)/.exec(raw);
    if (fm) {
      func = fm[2]!;
      out.push(raw, `${fm[1]}  (local $__ff_a i32) (local $__ff_i32a i32) (local $__ff_i32b i32) (local $__ff_i64a i64) (local $__ff_i64b i64) (local $__ff_f32a f32) (local $__ff_f64a f64)`);
      continue;
    }
    const l = parseLine(raw);
    if (!l) {
      out.push(raw);
      continue;
    }
    const op = opcode(l);
    if (isWait(op)) {
      const off = offsetOf(l);
      const name = `$__ff_${op.slice(12)}_${off}`;
      if (!waitHelpers.has(name)) waitHelpers.set(name, waitHelper(name, op, off));
      out.push(`${l.indent}call ${name}${l.tail}`);
      continue;
    }
    if (isPlainAccess(op) || isAtomicAccess(op)) {
      const s = site++;
      sites.set(s, `${func} ${op}`);
      const kind = /\.load/.test(op) ? 1 : 2;
      const vals = operands(op);
      const names = vals.map((ty, i) => `$__ff_${ty}${i === 0 ? "a" : "b"}`);
      const I = l.indent;
      for (let i = names.length - 1; i >= 0; i--) out.push(`${I}local.set ${names[i]}`);
      out.push(`${I}local.tee $__ff_a`, `${I}local.get $__ff_a`, `${I}i32.const ${offsetOf(l)}`, `${I}i32.add`, `${I}i32.const ${s * 4 + kind}`, `${I}call $__ff_yield_mem`);
      for (const n of names) out.push(`${I}local.get ${n}`);
    }
    out.push(raw);
  }
  const text = addFields(
    out.join("\n"),
    [
      `(import "ff" "yield_mem" (func $__ff_yield_mem (param i32 i32)))`,
      `(import "ff" "yield_wait" (func $__ff_yield_wait (param i32 i32)))`,
      `(import "ff" "yield_post" (func $__ff_yield_post))`,
    ],
    [...waitHelpers.values()],
  );
  return { text, sites };
}

function waitHelper(name: string, op: string, off: number): string {
  const is64 = op.endsWith("64");
  return [
    `(func ${name} (param $a i32) (param $e ${is64 ? "i64" : "i32"}) (param $t i64) (result i32)`,
    // a wait with a timeout (>= 0 ns) ends by itself: not a block the scheduler must resolve
    `    local.get $t`,
    `    i64.const 0`,
    `    i64.ge_s`,
    `    if (result i32)`,
    `      local.get $a`,
    `      local.get $e`,
    `      local.get $t`,
    `      ${op} offset=${off}`,
    `      return`,
    `    else i32.const 0 end`,
    `    drop`,
    `    local.get $a`,
    `    i32.const ${off}`,
    `    i32.add`,
    `    local.get $e`,
    ...(is64 ? [`    i32.wrap_i64`] : []),
    `    call $__ff_yield_wait`,
    `    local.get $a`,
    `    local.get $e`,
    `    local.get $t`,
    `    ${op} offset=${off}`,
    `    call $__ff_yield_post)`,
  ].join("\n");
}
