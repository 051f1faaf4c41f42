// Fault injection: break a module the way a buggy compiler would, to prove the
// oracles see such bugs. Each fault rewrites every place it applies to (a
// compiler bug is systematic); `applies` says whether the module had any.
//   rmw-plain    atomic RMW / cmpxchg -> plain load, op, store (helper function)
//   drop-notify  memory.atomic.notify dropped (returns 0 woken)
//   narrow       atomic RMW narrowed (32->16, 64->32, 16->8 bits)
//   reorder      a plain store moved after the atomic store (and notify) that follows it
import { addFields, isNotify, isPush, offsetOf, opcode, parseLine, type Line } from "./linear";

export const FAULT_KINDS = ["rmw-plain", "drop-notify", "narrow", "reorder"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const RMW_RE = /^(i32|i64)\.atomic\.rmw(8|16|32)?\.(add|sub|and|or|xor|xchg|cmpxchg)(_u)?$/;

export function injectFault(linear: string, kind: FaultKind): { text: string; applies: boolean; count: number } {
  switch (kind) {
    case "rmw-plain": return rmwPlain(linear);
    case "drop-notify": return mapLines(linear, (l) => (isNotify(opcode(l)) ? [`drop`, `drop`, `i32.const 0`] : null));
    case "narrow": return mapLines(linear, (l) => {
      const m = RMW_RE.exec(opcode(l));
      if (!m) return null;
      const [, ty, w, op] = m;
      const full = ty === "i32" ? 32 : 64;
      const cur = w ? Number(w) : full;
      const to = cur === 64 ? 32 : cur === 32 ? 16 : cur === 16 ? 8 : 0;
      if (!to) return null;
      return [l.instr.replace(opcode(l), `${ty}.atomic.rmw${to}.${op}_u`)];
    });
    case "reorder": return reorder(linear);
  }
}

function mapLines(linear: string, f: (l: Line) => string[] | null): { text: string; applies: boolean; count: number } {
  let count = 0;
  const out: string[] = [];
  for (const raw of linear.split("\n")) {
    const l = parseLine(raw);
    const rep = l ? f(l) : null;
    if (!l || !rep) {
      out.push(raw);
      continue;
    }
    count++;
    rep.forEach((r, i) => out.push(l.indent + r + (i === rep.length - 1 ? l.tail : "")));
  }
  return { text: out.join("\n"), applies: count > 0, count };
}

function rmwPlain(linear: string) {
  const helpers = new Map<string, string>();
  const r = mapLines(linear, (l) => {
    const m = RMW_RE.exec(opcode(l));
    if (!m) return null;
    const [, ty, w, op] = m;
    const off = offsetOf(l);
    const name = `$__ff_plain_${ty}_${w ?? "full"}_${op}_${off}`;
    if (!helpers.has(name)) helpers.set(name, plainHelper(name, ty as "i32" | "i64", w ? Number(w) : 0, op!, off));
    return [`call ${name}`];
  });
  return { text: r.applies ? addFields(r.text, [], [...helpers.values()]) : r.text, applies: r.applies, count: r.count };
}

function plainHelper(name: string, ty: "i32" | "i64", w: number, op: string, off: number): string {
  const load = w ? `${ty}.load${w}_u` : `${ty}.load`;
  const store = w ? `${ty}.store${w}` : `${ty}.store`;
  const o = `offset=${off}`;
  if (op === "cmpxchg") {
    const mask = w ? (ty === "i32" ? `i32.const ${(2 ** w - 1) | 0}` : `i64.const ${(1n << BigInt(w)) - 1n}`) : null;
    return [
      `(func ${name} (param $a i32) (param $e ${ty}) (param $r ${ty}) (result ${ty}) (local $o ${ty})`,
      `    local.get $a`, `    ${load} ${o}`, `    local.set $o`,
      `    local.get $o`, `    local.get $e`, ...(mask ? [`    ${mask}`, `    ${ty}.and`] : []), `    ${ty}.eq`,
      `    if`, `      local.get $a`, `      local.get $r`, `      ${store} ${o}`, `    end`,
      `    local.get $o)`,
    ].join("\n");
  }
  const compute = op === "xchg" ? [`    local.get $v`] : [`    local.get $o`, `    local.get $v`, `    ${ty}.${op}`];
  return [
    `(func ${name} (param $a i32) (param $v ${ty}) (result ${ty}) (local $o ${ty})`,
    `    local.get $a`, `    ${load} ${o}`, `    local.set $o`,
    `    local.get $a`, ...compute, `    ${store} ${o}`,
    `    local.get $o)`,
  ].join("\n");
}

/** Move `push push plain-store` groups that directly precede an atomic write past it (and past a following notify). */
function reorder(linear: string) {
  const lines = linear.split("\n");
  const parsed = lines.map(parseLine);
  const op = (i: number) => (parsed[i] ? opcode(parsed[i]!) : "");
  const isGroup = (i: number, test: (o: string) => boolean) =>
    i + 2 < lines.length && isPush(op(i)) && isPush(op(i + 1)) && test(op(i + 2)) && !parsed[i]!.tail && !parsed[i + 1]!.tail;
  const plainStore = (o: string) => /^(i32|i64)\.store(8|16|32)?$/.test(o);
  const atomicWrite = (o: string) => /^(i32|i64)\.atomic\.(store|rmw)/.test(o);
  let count = 0;
  for (let i = 0; i + 5 < lines.length; i++) {
    if (!isGroup(i, plainStore) || parsed[i + 2]!.tail || !isGroup(i + 3, atomicWrite)) continue;
    let end = i + 6; // exclusive end of the atomic group (+ notify group)
    if (isGroup(end, isNotify) && op(end + 3) === "drop") end += 4;
    const lastTail = parsed[end - 1]!.tail;
    const moved = lines.slice(i, i + 3);
    const after = lines.slice(i + 3, end);
    if (lastTail) after[after.length - 1] = after[after.length - 1]!.replace(/\)+\s*$/, "");
    moved[2] = moved[2] + lastTail;
    lines.splice(i, end - i, ...after, ...moved);
    parsed.splice(i, end - i, ...lines.slice(i, end).map(parseLine));
    count++;
    i = end - 1;
  }
  return { text: lines.join("\n"), applies: count > 0, count };
}
