// The job's coverage as the engine knows it: the shape of each instrumented
// file and hit counts (the features themselves are the job recorder's). Each executor process reports cumulative counters of its own
// lifetime; when it ends, its last snapshot is added to the job's totals.
// A process that crashed loses its counts since its last snapshot, so the
// map is patched to count every known feature at least once.
import type { Counts, FileShape } from "./messages";

export class CoverageBook {
  private readonly shapes = new Map<string, FileShape>();
  private readonly totals: Counts = {};
  private current: Counts | null = null;

  addShapes(shapes: readonly FileShape[]): void {
    for (const s of shapes) if (!this.shapes.has(s.rel)) this.shapes.set(s.rel, s);
  }

  /** Latest cumulative counters of the running executor. */
  snapshot(counts: Counts): void {
    this.current = counts;
  }

  /** The running executor ended: fold its last snapshot into the totals. */
  endProcess(): void {
    const c = this.current;
    this.current = null;
    if (!c) return;
    for (const [rel, v] of Object.entries(c)) {
      const t = (this.totals[rel] ??= { s: [], f: [], b: [] });
      v.s.forEach((n, i) => (t.s[i] = (t.s[i] ?? 0) + n));
      v.f.forEach((n, i) => (t.f[i] = (t.f[i] ?? 0) + n));
      v.b.forEach((arms, i) => {
        const tb = (t.b[i] ??= []);
        arms.forEach((n, a) => (tb[a] = (tb[a] ?? 0) + n));
      });
    }
  }

  /** Counters of all files seen: statements + functions + branch arms. */
  featureTotal(): number {
    let n = 0;
    for (const s of this.shapes.values()) {
      n += Object.keys(s.statementMap).length + Object.keys(s.fnMap).length;
      for (const b of Object.values(s.branchMap)) n += ((b as { locations?: unknown[] }).locations ?? []).length;
    }
    return n;
  }

  /** istanbul CoverageMapData keyed by relative path; every one of `features` counts at least once. */
  toCoverageMap(features: Iterable<string>): Record<string, unknown> {
    this.endProcess();
    const out: Record<string, unknown> = {};
    for (const [rel, shape] of this.shapes) {
      const t = this.totals[rel] ?? { s: [], f: [], b: [] };
      const s: Record<string, number> = {};
      const f: Record<string, number> = {};
      const b: Record<string, number[]> = {};
      Object.keys(shape.statementMap).forEach((id, i) => (s[id] = t.s[i] ?? 0));
      Object.keys(shape.fnMap).forEach((id, i) => (f[id] = t.f[i] ?? 0));
      Object.entries(shape.branchMap).forEach(([id, br], i) => {
        const arms = ((br as { locations?: unknown[] }).locations ?? []).length;
        b[id] = Array.from({ length: arms }, (_, a) => t.b[i]?.[a] ?? 0);
      });
      out[rel] = { path: rel, statementMap: shape.statementMap, fnMap: shape.fnMap, branchMap: shape.branchMap, s, f, b };
    }
    for (const key of features) {
      const m = /^([sfb]):(.*):(\d+)(?::(\d+))?$/.exec(key);
      if (!m) continue;
      const file = out[m[2]!] as { s: Record<string, number>; f: Record<string, number>; b: Record<string, number[]> } | undefined;
      if (!file) continue;
      if (m[1] === "s" && !file.s[m[3]!]) file.s[m[3]!] = 1;
      if (m[1] === "f" && !file.f[m[3]!]) file.f[m[3]!] = 1;
      const arms = m[1] === "b" ? file.b[m[3]!] : undefined;
      if (arms && !arms[Number(m[4])]) arms[Number(m[4])] = 1;
    }
    return out;
  }
}
