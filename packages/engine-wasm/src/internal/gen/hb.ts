// Happens-before over a program's top-level statements (program order,
// spawn -> child start, child end -> join, signal -> wait). Used to tell
// whether two shared operations can race: the fault-detection bench counts a
// fault as applying to a program only where it can change what runs observe.
import type { Program, Stmt } from "./ir";
import { evaluate } from "./evaluate";

interface OpAt { t: number; i: number; cell: number; write: boolean; rmw: boolean; lock: number | null }

/** Shared operations that run (sites seen by the sequential execution), with their top-level index. */
function opsOf(p: Program): OpAt[] {
  const ran = new Set(evaluate(p).logs.flat().map(([s]) => s));
  const out: OpAt[] = [];
  p.threads.forEach((th) =>
    th.body.forEach((s, i) => {
      const visit = (x: Stmt): void => {
        if (x.k === "if") { x.t.forEach(visit); x.f.forEach(visit); }
        else if (x.k === "loop") x.body.forEach(visit);
        else if ((x.k === "rmw" || x.k === "cas" || x.k === "casloop" || x.k === "locked") && ran.has(x.site))
          out.push({ t: th.id, i, cell: x.cell, write: true, rmw: true, lock: x.k === "locked" ? x.lock : null });
        else if (x.k === "aload" && ran.has(x.site)) out.push({ t: th.id, i, cell: x.cell, write: false, rmw: false, lock: null });
      };
      visit(s);
    }),
  );
  return out;
}

/** A reachability oracle over (thread, top-level index) events; -1 = thread start, n = end. */
export function happensBefore(p: Program): (a: { t: number; i: number }, b: { t: number; i: number }) => boolean {
  const key = (t: number, i: number) => `${t}:${i}`;
  const succ = new Map<string, string[]>();
  const edge = (a: string, b: string) => (succ.get(a) ?? succ.set(a, []).get(a)!).push(b);
  const signals = new Map<number, string>();
  const waits = new Map<number, string>();
  for (const th of p.threads) {
    const n = th.body.length;
    for (let i = -1; i < n; i++) edge(key(th.id, i), key(th.id, i + 1));
    th.body.forEach((s, i) => {
      if (s.k === "spawn") edge(key(th.id, i), key(s.t, -1));
      if (s.k === "join") edge(key(s.t, p.threads[s.t]!.body.length), key(th.id, i));
      if (s.k === "signal") signals.set(s.flag, key(th.id, i));
      if (s.k === "wait") waits.set(s.flag, key(th.id, i));
    });
  }
  for (const [f, s] of signals) if (waits.has(f)) edge(s, waits.get(f)!);
  const memo = new Map<string, Set<string>>();
  const reach = (a: string): Set<string> => {
    let r = memo.get(a);
    if (r) return r;
    r = new Set();
    const stack = [a];
    while (stack.length) for (const n of succ.get(stack.pop()!) ?? []) if (!r.has(n)) { r.add(n); stack.push(n); }
    memo.set(a, r);
    return r;
  };
  return (a, b) => reach(key(a.t, a.i)).has(key(b.t, b.i));
}

/** Pairs of operations on one cell, in different threads, unordered by happens-before, at least one writing. */
function racingPairs(p: Program, ops: OpAt[], hb: ReturnType<typeof happensBefore>): [OpAt, OpAt][] {
  const out: [OpAt, OpAt][] = [];
  for (let x = 0; x < ops.length; x++)
    for (let y = x + 1; y < ops.length; y++) {
      const a = ops[x]!, b = ops[y]!;
      if (a.t !== b.t && a.cell === b.cell && (a.write || b.write) && !hb(a, b) && !hb(b, a)) out.push([a, b]);
    }
  return out;
}

/**
 * Can a non-atomic read-modify-write change what a run observes? Only where two
 * read-modify-writes of one cell run unordered by happens-before (an RMW racing
 * with an atomic load cannot lose an update), and, for the xchg and cas classes,
 * only while the cell still holds its initial 0: their first operation sets the
 * one value every later one writes (or compares against), so a lost update of
 * two operations that both come after some operation on the cell is invisible.
 */
export function hasRacingRmw(p: Program): boolean {
  const ops = opsOf(p);
  const hb = happensBefore(p);
  const settled = (a: OpAt): boolean => {
    const cls = p.cells[a.cell]!.cls;
    return (cls === "xchg" || cls === "cas") && ops.some((o) => o.cell === a.cell && o.rmw && hb(o, a));
  };
  return racingPairs(p, ops, hb).some(([a, b]) => a.rmw && b.rmw && !settled(a) && !settled(b));
}

/** Cells whose accesses race (where schedules matter), each with the lock that guards it (locked cells) or null. */
export function racingCells(p: Program): { cell: number; lock: number | null }[] {
  const ops = opsOf(p);
  const byCell = new Map<number, number | null>();
  for (const [a] of racingPairs(p, ops, happensBefore(p))) byCell.set(a.cell, a.lock);
  return [...byCell].sort((x, y) => x[0] - y[0]).map(([cell, lock]) => ({ cell, lock }));
}
