// The threads proposal's instructions and forms, and which of them a program
// holds: the catalogue behind the README table "Every instruction and form"
// and the test that a fixed seed range emits all of them. Read from the
// program's text (instruction names, memargs) and its tree (operand values,
// how results are used), as a reviewer would check it.
import type { Program, Stmt } from "./ir";
import { rmwName, loadName } from "./emit";

const WIDTHS = { i32: [8, 16, 32], i64: [8, 16, 32, 64] } as const;
const OPS = ["add", "sub", "and", "or", "xor", "xchg", "cmpxchg"] as const;

/** Every instruction of the threads proposal by name. */
export const THREADS_INSTRUCTIONS: string[] = [
  ...(["i32", "i64"] as const).flatMap((ty) => WIDTHS[ty].flatMap((w) => [
    loadName(ty, w),
    `${ty}.atomic.store${w === (ty === "i32" ? 32 : 64) ? "" : w}`,
    ...OPS.map((op) => rmwName(ty, w, op)),
  ])),
  "memory.atomic.wait32", "memory.atomic.wait64", "memory.atomic.notify", "atomic.fence",
];

/** Forms beyond the instruction name, each with what shows it. */
export const THREADS_FORMS: Record<string, string> = {
  "memarg offset=0": "an atomic access without offset=",
  "memarg offset small": "an atomic access with offset= 1..16",
  "memarg offset large": "an atomic access with offset= 256 or more",
  "memarg align": "an atomic access with align= (its natural alignment)",
  "wait offset": "wait32 / wait64 with offset=",
  "notify offset": "notify with offset=",
  "wait expected matches": "wait whose expected value is the word's (times out: 2)",
  "wait expected differs": "wait whose expected value is not the word's (returns 1)",
  "wait timeout 0": "timeout 0",
  "wait timeout finite": "timeout > 0 ns",
  "wait timeout infinite": "timeout -1",
  "notify count 0": "count 0",
  "notify count 1": "count 1",
  "notify count n": "count 3",
  "notify count all": "count -1 (u32 max)",
  "narrow rmw operand wider": "a narrow RMW whose operand has bits above the access width",
  "narrow cmpxchg expected wider": "a narrow cmpxchg whose expected value has bits above the access width",
  "result used": "an RMW's returned value used whole",
  "result dropped": "an RMW's returned value dropped",
  "result used in part": "an RMW's returned value masked to its low byte",
};

/** The instructions (by name) and forms (THREADS_FORMS keys) program `p`, printed as `wat`, holds. */
export function formsOf(p: Program, wat: string): Set<string> {
  const out = new Set<string>();
  for (const m of wat.matchAll(/\((i(?:32|64)\.atomic\.[a-z0-9_.]+|memory\.atomic\.(?:wait32|wait64|notify)|atomic\.fence)\b([^()]*)/g)) {
    out.add(m[1]!);
    const memarg = m[2]!;
    const off = /offset=(\d+)/.exec(memarg);
    if (!off) out.add("memarg offset=0");
    else out.add(Number(off[1]) >= 256 ? "memarg offset large" : "memarg offset small");
    if (/align=/.test(memarg)) out.add("memarg align");
    if (off && m[1]!.startsWith("memory.atomic.wait")) out.add("wait offset");
    if (off && m[1] === "memory.atomic.notify") out.add("notify offset");
  }
  const walk = (b: Stmt[]): void => {
    for (const s of b) {
      if (s.k === "if") { walk(s.t); walk(s.f); }
      else if (s.k === "loop" || s.k === "let") walk(s.body);
      else if (s.k === "await") {
        out.add(s.match ? "wait expected matches" : "wait expected differs");
        out.add(s.timeout === 0n ? "wait timeout 0" : s.timeout < 0n ? "wait timeout infinite" : "wait timeout finite");
      } else if (s.k === "notify") out.add(`notify count ${s.count === 0 ? "0" : s.count === 1 ? "1" : s.count === -1 ? "all" : "n"}`);
      else if (s.k === "prmw") {
        const full = s.m.ty === "i32" ? 32 : 64;
        if (s.m.w < full && s.op !== "cmpxchg" && s.v >> BigInt(s.m.w) !== 0n) out.add("narrow rmw operand wider");
        if (s.m.w < full && s.op === "cmpxchg" && s.exp >> BigInt(s.m.w) !== 0n) out.add("narrow cmpxchg expected wider");
        out.add(s.use === "drop" ? "result dropped" : s.use === "part" ? "result used in part" : "result used");
      }
    }
  };
  for (const t of p.threads) walk(t.body);
  // joins wait on their child's completion word with timeout -1 (the word matches until the child ends)
  if (/memory\.atomic\.wait32[^()]*\(i32\.const \d+\) \(i32\.const 0\) \(i64\.const -1\)/.test(wat)) out.add("wait timeout infinite");
  return out;
}
