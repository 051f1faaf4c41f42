// History oracle (Jepsen-style, like V8's test/mjsunit/wasm/atomics-stress.js):
// threads log every atomic operation on a shared cell with the value it
// returned. Per cell, we search for a total order of all logged operations that
// respects each thread's program order and explains every returned value, and
// whose last write leaves the observed final value. No such order = a
// violation. The order found also gives reads-from pairs (which write each
// atomic read observed), used as novelty features.
import type { Program, RmwOp, Stmt, Width } from "../gen/ir";
import { applyRmw, widthMask } from "../gen/evaluate";

export interface SiteOp {
  site: number;
  cell: number;
  kind: "rmw" | "cas" | "read";
  op: RmwOp;
  w: Width;
  v: bigint;
}

export function siteTable(p: Program): Map<number, SiteOp> {
  const m = new Map<number, SiteOp>();
  const walk = (b: Stmt[]): void => {
    for (const s of b) {
      if (s.k === "if") { walk(s.t); walk(s.f); }
      else if (s.k === "loop") walk(s.body);
      else if (s.k === "rmw") m.set(s.site, { site: s.site, cell: s.cell, kind: "rmw", op: s.op, w: s.w, v: s.v });
      else if (s.k === "casloop") m.set(s.site, { site: s.site, cell: s.cell, kind: "rmw", op: "add", w: s.w, v: s.v });
      else if (s.k === "cas") m.set(s.site, { site: s.site, cell: s.cell, kind: "cas", op: "xchg", w: s.w, v: s.v });
      else if (s.k === "aload") m.set(s.site, { site: s.site, cell: s.cell, kind: "read", op: "add", w: s.w, v: 0n });
      else if (s.k === "locked") m.set(s.site, { site: s.site, cell: s.cell, kind: "rmw", op: "add", w: 32, v: BigInt(s.v >>> 0) });
    }
  };
  for (const t of p.threads) walk(t.body);
  return m;
}

export interface HistoryVerdict {
  ok: boolean;
  /** Cells without a consistent order, with a one-line reason. */
  violations: { cell: number; reason: string }[];
  /** `readSite=writeSite` pairs (writeSite 0 = initial value). */
  readsFrom: string[];
  inconclusive: number;
}

const NODE_LIMIT = 200_000;

/** Check the logs of one run. `finals` are the observed final cell values (null: unknown). */
export function checkHistory(p: Program, sites: Map<number, SiteOp>, logs: [number, bigint][][], finals: (bigint | null)[]): HistoryVerdict {
  const verdict: HistoryVerdict = { ok: true, violations: [], readsFrom: [], inconclusive: 0 };
  for (let c = 0; c < p.cells.length; c++) {
    const cellW = p.cells[c]!.w;
    const seqs = logs.map((l) => l.filter(([s]) => sites.get(s)?.cell === c).map(([s, v]) => ({ op: sites.get(s)!, ret: v })));
    const total = seqs.reduce((n, s) => n + s.length, 0);
    if (total === 0) continue;
    const pos = seqs.map(() => 0);
    const seen = new Set<string>();
    const order: { site: number; writer: number }[] = [];
    let nodes = 0;
    const dfs = (value: bigint, lastWriter: number, done: number): boolean | null => {
      if (done === total) return finals[c] == null || finals[c] === value;
      if (++nodes > NODE_LIMIT) return null;
      const key = `${pos.join(",")}|${value}`;
      if (seen.has(key)) return false;
      seen.add(key);
      for (let t = 0; t < seqs.length; t++) {
        const e = seqs[t]![pos[t]!];
        if (!e) continue;
        const m = widthMask(e.op.w);
        if ((value & m) !== e.ret) continue;
        let next = value;
        let writes = true;
        if (e.op.kind === "read") writes = false;
        else if (e.op.kind === "cas") { if ((value & m) === 0n) next = (value & ~m) | (e.op.v & m); else writes = false; }
        else next = applyRmw(cellW, value, e.op.op, e.op.w, e.op.v)[0];
        pos[t]!++;
        order.push({ site: e.op.site, writer: lastWriter });
        const r = dfs(next, writes ? e.op.site : lastWriter, done + 1);
        if (r !== false) return r;
        order.pop();
        pos[t]!--;
      }
      return false;
    };
    const r = dfs(0n, 0, 0);
    if (r === null) verdict.inconclusive++;
    else if (!r) {
      verdict.ok = false;
      const rets = seqs.flat().map((e) => `${e.op.site}:${e.ret}`).join(" ");
      verdict.violations.push({ cell: c, reason: `cell ${c}: no total order explains returned values [${rets}]${finals[c] != null ? ` and final ${finals[c]}` : ""}` });
    } else for (const o of order) verdict.readsFrom.push(`${o.site}=${o.writer}`);
  }
  return verdict;
}
