// Helpers over wabt's linear text (one instruction per line, names applied):
// the representation the yield instrumentation and the fault injector rewrite.
// Rewriting text keeps both passes independent of who produced the module
// (our generator, an optimizer under test, or a user's litmus test).

export interface Line {
  indent: string;
  /** The instruction without trailing closing parens, e.g. `i32.atomic.store offset=4`. */
  instr: string;
  /** Closing parens that end enclosing forms (`)` of a func). */
  tail: string;
  raw: string;
}

const INSTR_RE = /^(\s+)([a-z][a-z0-9_.]*(?:\s+[^()]*)?)(\)*)\s*$/;

export function parseLine(raw: string): Line | null {
  if (/^\s*\(/.test(raw)) return null;
  const m = INSTR_RE.exec(raw);
  if (!m) return null;
  return { indent: m[1]!, instr: m[2]!.trim(), tail: m[3]!, raw };
}

export const opcode = (l: Line): string => l.instr.split(/\s+/)[0]!;
export const offsetOf = (l: Line): number => {
  const m = /offset=(\d+)/.exec(l.instr);
  return m ? Number(m[1]) : 0;
};

export const isPlainAccess = (op: string): boolean => /^(i32|i64|f32|f64)\.(load|store)/.test(op);
export const isAtomicAccess = (op: string): boolean => /^(i32|i64)\.atomic\./.test(op);
export const isWait = (op: string): boolean => /^memory\.atomic\.wait(32|64)$/.test(op);
export const isNotify = (op: string): boolean => op === "memory.atomic.notify";
export const isPush = (op: string): boolean => /^(i32\.const|i64\.const|local\.get|global\.get)$/.test(op);

/** Insert module fields: imports right after `(module`, functions before the module's final `)`. */
export function addFields(text: string, imports: string[], funcs: string[]): string {
  const lines = text.split("\n");
  const first = lines.findIndex((l) => /^\(module\b/.test(l));
  if (first < 0) throw new Error("not a module text");
  const m = /^\(module(\s+\$\S+)?/.exec(lines[first]!)!;
  const head = m[0];
  const rest = lines[first]!.slice(head.length);
  lines.splice(first, 1, head, ...imports.map((s) => "  " + s), ...(rest.trim() ? ["  " + rest] : []));
  let last = lines.length - 1;
  while (last >= 0 && lines[last]!.trim() === "") last--;
  const l = lines[last]!;
  const cut = l.lastIndexOf(")");
  lines[last] = l.slice(0, cut);
  lines.push(...funcs.map((f) => "  " + f), ")");
  return lines.join("\n");
}
