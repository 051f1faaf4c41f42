// Program shape (a structural hash that ignores constants), generator features,
// and a JSON form of program trees (bigints tagged) for reproducers.
import type { JsonValue } from "@fuzzfarm/protocol";
import type { Program, Stmt } from "./ir";

export function fnv(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

function stmtShape(s: Stmt): string {
  switch (s.k) {
    case "if": return `if(${s.t.map(stmtShape).join(",")}|${s.f.map(stmtShape).join(",")})`;
    case "loop": return `loop(${s.body.map(stmtShape).join(",")})`;
    case "rmw": return `rmw.${s.op}${s.w}`;
    case "cas": case "casloop": case "aload": return `${s.k}${s.w}`;
    case "locked": case "spawn": case "join": case "signal": case "wait": return s.k;
    default: return "";
  }
}

/** Structural hash: spawn tree plus the shared/synchronizing statements of each thread. */
export function programShape(p: Program): string {
  const parts = p.threads.map((t) => `${t.parent}:${t.body.map(stmtShape).filter(Boolean).join(",")}`);
  return fnv(parts.join(";") + "|" + p.cells.map((c) => c.cls + c.w).join(","));
}

/** `gen:` features: which constructs the program contains. */
export function genFeatures(p: Program): string[] {
  const f = new Set<string>([`gen:threads:${p.threads.length}`, `gen:depth:${Math.max(...p.threads.map((t) => t.depth))}`]);
  for (const c of p.cells) f.add(`gen:cell:${c.cls}:${c.w}`);
  const walk = (b: Stmt[], nested: boolean): void => {
    for (const s of b) {
      if (s.k === "if") { walk(s.t, true); walk(s.f, true); }
      else if (s.k === "loop") walk(s.body, true);
      else if (s.k === "rmw") f.add(`gen:rmw:${s.op}:${s.ty}:${s.w}:${s.use}`);
      else if (s.k === "cas" || s.k === "casloop" || s.k === "aload") f.add(`gen:${s.k}:${s.ty}:${s.w}`);
      else if (s.k === "locked" || s.k === "wait") f.add(`gen:${s.k}`);
      if (nested && (s.k === "rmw" || s.k === "locked")) f.add(`gen:nested-${s.k}`);
    }
  };
  for (const t of p.threads) walk(t.body, false);
  return [...f];
}

export function programToJson(p: Program): JsonValue {
  return JSON.parse(JSON.stringify(p, (_k, v) => (typeof v === "bigint" ? { $big: v.toString() } : v)));
}

export function programFromJson(j: unknown): Program {
  return JSON.parse(JSON.stringify(j), (_k, v) => (v && typeof v === "object" && typeof v.$big === "string" ? BigInt(v.$big) : v)) as Program;
}
