// Minimization of a failing program: delta debugging over the program tree
// (whole sub-threads with their spawn/join and wait/notify partners, then
// statement chunks of halving size, then single statements), keeping each cut
// while the program still fails the same oracle; then, for token-style
// schedules, the schedule: the shortest replayed prefix of decisions, then as
// few context switches as possible.
import type { Program, Stmt, Thread } from "./gen/ir";
import type { RunSpec } from "./runner/supervisor";

/** Remove thread `t` and its descendants, their spawns/joins and the partners of their waits/signals. */
export function removeThread(p: Program, t: number): Program {
  const gone = new Set<number>([t]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const th of p.threads) if (!gone.has(th.id) && gone.has(th.parent)) { gone.add(th.id); changed = true; }
  }
  const flags = new Set<number>();
  const scan = (b: Stmt[]) => b.forEach((s) => (s.k === "signal" || s.k === "wait") && flags.add(s.flag));
  for (const th of p.threads) if (gone.has(th.id)) scan(th.body);
  const remap = new Map<number, number>();
  p.threads.filter((th) => !gone.has(th.id)).forEach((th, i) => remap.set(th.id, i));
  const threads: Thread[] = p.threads
    .filter((th) => !gone.has(th.id))
    .map((th) => ({
      id: remap.get(th.id)!,
      parent: th.parent < 0 ? -1 : remap.get(th.parent)!,
      depth: th.depth,
      body: th.body
        .filter((s) => !((s.k === "spawn" || s.k === "join") && gone.has(s.t)) && !((s.k === "signal" || s.k === "wait") && flags.has(s.flag)))
        .map((s) => (s.k === "spawn" || s.k === "join" ? { ...s, t: remap.get(s.t)! } : s)),
    }));
  return { ...p, threads };
}

type Path = { t: number; path: number[] };

function stmtPaths(p: Program): Path[] {
  const out: Path[] = [];
  const walk = (t: number, b: Stmt[], pre: number[]) =>
    b.forEach((s, i) => {
      const path = [...pre, i];
      if (s.k === "spawn" || s.k === "join" || s.k === "signal" || s.k === "wait") return;
      out.push({ t, path });
      if (s.k === "if") { walk(t, s.t, [...path, 0]); walk(t, s.f, [...path, 1]); }
      if (s.k === "loop") walk(t, s.body, [...path, 0]);
    });
  p.threads.forEach((th) => walk(th.id, th.body, []));
  return out;
}

/** Remove statements at `paths` (deepest first, so indices stay valid). */
export function removeStmts(p: Program, paths: Path[]): Program {
  const q: Program = JSON.parse(JSON.stringify(p, (_k, v) => (typeof v === "bigint" ? { $b: v.toString() } : v)), (_k, v) => (v && typeof v === "object" && "$b" in v ? BigInt(v.$b) : v));
  const sorted = [...paths].sort((a, b) => (a.t !== b.t ? a.t - b.t : cmpDesc(a.path, b.path)));
  for (const { t, path } of sorted) {
    let list: Stmt[] = q.threads[t]!.body;
    for (let i = 0; i < path.length - 1; i += 2) {
      const s = list[path[i]!];
      if (!s) { list = []; break; }
      list = s.k === "if" ? (path[i + 1] === 0 ? s.t : s.f) : s.k === "loop" ? s.body : [];
    }
    list.splice(path[path.length - 1]!, 1);
  }
  return q;
}
function cmpDesc(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return b[i]! - a[i]!;
  return b.length - a.length;
}
const isPrefix = (a: number[], b: number[]) => a.length < b.length && a.every((x, i) => b[i] === x);

export interface MinimizeOptions {
  /** Most predicate evaluations spent on the program tree. Default 120. */
  maxTries: number;
}

/** Shrink `p` while `stillFails` holds. `stillFails` must be deterministic enough (e.g. same schedules). */
export async function minimizeProgram(p: Program, stillFails: (q: Program) => Promise<boolean>, opts: Partial<MinimizeOptions> = {}): Promise<{ program: Program; tries: number }> {
  const maxTries = opts.maxTries ?? 120;
  let cur = p;
  let tries = 0;
  const attempt = async (q: Program): Promise<boolean> => {
    if (tries >= maxTries) return false;
    tries++;
    if (await stillFails(q)) { cur = q; return true; }
    return false;
  };
  // 1. Whole threads (deepest first).
  for (let progress = true; progress && tries < maxTries; ) {
    progress = false;
    for (let t = cur.threads.length - 1; t >= 1; t--) if (await attempt(removeThread(cur, t))) { progress = true; break; }
  }
  // 2. Statement chunks, halving.
  let paths = stmtPaths(cur);
  for (let size = Math.max(1, paths.length >> 1); size >= 1 && tries < maxTries; size = size === 1 ? 0 : Math.max(1, size >> 1)) {
    for (let i = 0; i < paths.length && tries < maxTries; ) {
      const chunk = paths.slice(i, i + size).filter((c, _j, all) => !all.some((o) => o.t === c.t && isPrefix(o.path, c.path)));
      if (await attempt(removeStmts(cur, chunk))) paths = stmtPaths(cur);
      else i += size;
    }
  }
  return { program: cur, tries };
}

/** Shrink a replayed schedule: shortest prefix, then fewest context switches. */
export async function minimizeSchedule(decisions: number[], stillFails: (replay: number[]) => Promise<boolean>, maxTries = 40): Promise<number[]> {
  let cur = decisions;
  let tries = 0;
  let lo = 0, hi = cur.length;
  while (lo < hi && tries < maxTries) {
    const mid = (lo + hi) >> 1;
    tries++;
    if (await stillFails(cur.slice(0, mid))) hi = mid; else lo = mid + 1;
  }
  cur = cur.slice(0, hi);
  for (let i = cur.length - 1; i > 0 && tries < maxTries; i--) {
    if (cur[i] === cur[i - 1]) continue;
    const cand = [...cur];
    cand[i] = cand[i - 1]!;
    tries++;
    if (await stillFails(cand)) cur = cand;
  }
  return cur;
}

/** The spec that replays `decisions` (token passing, no randomness beyond them). */
export function replaySpec(base: RunSpec, decisions: number[]): RunSpec {
  return { ...base, mode: 1, strategy: "replay", replay: decisions.length ? decisions : [0] };
}
