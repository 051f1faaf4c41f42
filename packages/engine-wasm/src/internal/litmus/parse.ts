// Parse wabt's linear text of a litmus module into per-function instruction
// lists with matched block structure, for the reference interpreter.
import { opcode, parseLine } from "../text/linear";

export interface Instr {
  op: string;
  args: string[];
  /** For block/loop/if: index of the matching `end`; for if: index of `else` (or -1). */
  end?: number;
  els?: number;
  label?: string;
  arity?: number;
}
export interface Func {
  name: string;
  params: string[];
  results: string[];
  locals: string[];
  localNames: Map<string, number>;
  body: Instr[];
}
export interface LinearModule {
  funcs: Map<string, Func>;
  exports: Map<string, string>;
  memory: { initial: number; maximum: number; shared: boolean; imported: boolean } | null;
  /** Imports other than env.memory (a litmus module should have none). */
  otherImports: string[];
}

export function parseLinear(text: string): LinearModule {
  const funcs = new Map<string, Func>();
  const exports = new Map<string, string>();
  const otherImports: string[] = [];
  let memory: LinearModule["memory"] = null;
  let cur: Func | null = null;
  for (const raw of text.split("\n")) {
    const mem = /\(memory (?:\$\S+ )?(\d+)(?: (\d+))?( shared)?\)/.exec(raw);
    if (mem && /^\s*\((import|memory)/.test(raw)) {
      memory = { initial: Number(mem[1]), maximum: Number(mem[2] ?? mem[1]), shared: !!mem[3], imported: /\(import/.test(raw) };
      if (/\(import/.test(raw) && !/\(import "env" "memory"/.test(raw)) otherImports.push(raw.trim());
      continue;
    }
    if (/^\s*\(import/.test(raw)) { otherImports.push(raw.trim()); continue; }
    const ex = /^\s*\(export "([^"]+)" \(func (\$\S+?)\)\)/.exec(raw);
    if (ex) { exports.set(ex[1]!, ex[2]!); continue; }
    const fh = /^\s*\(func (\$\S+)(.*)$/.exec(raw);
    if (fh) {
      cur = { name: fh[1]!, params: [], results: [], locals: [], localNames: new Map(), body: [] };
      funcs.set(cur.name, cur);
      const rest = fh[2]!;
      for (const m of rest.matchAll(/\(param (\$\S+) (\w+)\)/g)) { cur.localNames.set(m[1]!, cur.params.length); cur.params.push(m[2]!); }
      for (const m of rest.matchAll(/\(param((?: (?:i32|i64|f32|f64))+)\)/g)) for (const t of m[1]!.trim().split(" ")) cur.params.push(t);
      for (const m of rest.matchAll(/\(result((?: \w+)+)\)/g)) cur.results.push(...m[1]!.trim().split(" "));
      if (/\)\)\s*$/.test(rest) && !/\(result[^)]*\)\)\s*$|\(param[^)]*\)\)\s*$|\(type[^)]*\)\)\s*$/.test(rest)) cur = null;
      else if (/\)\s*$/.test(rest) && (rest.match(/\(/g)?.length ?? 0) < (rest.match(/\)/g)?.length ?? 0)) cur = null;
      continue;
    }
    if (!cur) continue;
    const loc = /^\s*\(local (.*)\)\s*$/.exec(raw);
    if (loc) {
      for (const m of loc[1]!.matchAll(/(\$\S+) (\w+)/g)) { cur.localNames.set(m[1]!, cur.params.length + cur.locals.length); cur.locals.push(m[2]!); }
      if (!/\$/.test(loc[1]!)) for (const t of loc[1]!.trim().split(/\s+/)) cur.locals.push(t);
      continue;
    }
    const l = parseLine(raw);
    if (!l) continue;
    const parts = l.instr.split(/\s+/);
    cur.body.push({ op: opcode(l), args: parts.slice(1) });
    if (l.tail) cur = null;
  }
  for (const f of funcs.values()) matchBlocks(f);
  return { funcs, exports, memory, otherImports };
}

function matchBlocks(f: Func): void {
  const stack: number[] = [];
  f.body.forEach((ins, i) => {
    if (ins.op === "block" || ins.op === "loop" || ins.op === "if") {
      ins.label = ins.args.find((a) => a.startsWith("$"));
      const res = ins.args.join(" ").match(/\(result((?: \w+)+)\)/);
      ins.arity = res ? res[1]!.trim().split(" ").length : 0;
      ins.els = -1;
      stack.push(i);
    } else if (ins.op === "else") f.body[stack[stack.length - 1]!]!.els = i;
    else if (ins.op === "end") {
      const s = stack.pop();
      if (s !== undefined) { f.body[s]!.end = i; ins.end = s; }
    }
  });
}
