// Systematic schedule exploration: stateless model checking over token
// decisions, as CHESS does. Token mode is deterministic, so a run is named by
// its decision list; each run reports, per decision, which threads could have
// been chosen and which access the chosen thread made. The explorer keeps the
// tree of decision lists seen, and every alternative left in a node's
// backtrack set is a new run: replay the path to the node, take the
// alternative, then let the running thread go on (or, for guided random runs,
// choose at random). When no alternative is left the exploration is exhausted.
//
// Two reductions. Steps that touch no shared memory are taken in one fixed
// order (the scheduler records only one candidate there). With `dependence`
// given, dynamic partial-order reduction: a finished run's steps are ordered by
// happens-before (program order plus conflicting accesses: overlapping bytes,
// one a write), each race (two conflicting steps of two threads with no other
// happens-before path between them) adds a backtrack point that runs it the
// other way round (source sets, Abdulla et al. 2014), and sleep sets (Godefroid)
// keep a branch from redoing an order of independent steps another branch ran:
// the scheduler is told which threads sleep after the replayed prefix. Schedules
// that differ only in the order of independent accesses then run once: SB, MP,
// LB and 2+2W take 3 runs, IRIW 17 (15 orders). Without it, every interleaving of memory
// accesses runs once (IRIW: 180).
import { createRng, type Rng } from "@fuzzfarm/rng";
import type { RunResult, RunSpec } from "./supervisor";

interface Node {
  /** Candidate threads at this decision (bitmask); -1 until a run passed here. */
  mask: number;
  kids: Map<number, Node>;
  /** Alternatives already run or handed out. */
  tried: Set<number>;
  /** Alternatives to run (DPOR); every candidate without a dependence relation. */
  backtrack: Set<number>;
  /** Per alternative added by a race: the reversed pair, as `siteA>siteB` (guided runs prefer pairs not yet reversed). */
  flips: Map<number, string>;
  /** The access each candidate thread makes when chosen here (DPOR). */
  acc: Map<number, Access>;
  /** Sleep set on reaching this node: threads whose step here was explored in an equivalent order already. */
  sleep: Map<number, Access>;
  /** Sleep sets of the branches handed out from here, for their nodes once the runs come back. */
  kidSleep: Map<number, Map<number, Access>>;
}

const node = (sleep: Map<number, Access> = new Map()): Node => ({ mask: -1, kids: new Map(), tried: new Set(), backtrack: new Set(), flips: new Map(), acc: new Map(), sleep, kidSleep: new Map() });

/** One step's access: address (-1: touches no shared memory), site, kind (1 read, 2 write or read-modify-write). */
export interface Access {
  addr: number;
  site: number;
  kind: number;
}
/** Do two accesses of different threads conflict (overlap, and one writes)? */
export type Dependence = (a: Access, b: Access) => boolean;

/** Dependence of accesses whose byte widths are known per instrumentation site. */
export function byteDependence(widthOfSite: (site: number) => number): Dependence {
  return (a, b) => {
    if (a.addr < 0 || b.addr < 0 || (a.kind === 1 && b.kind === 1)) return false;
    return a.addr < b.addr + widthOfSite(b.site) && b.addr < a.addr + widthOfSite(a.site);
  };
}

export interface ExploreStats {
  /** Runs recorded. */
  recorded: number;
  /** Alternatives still to run. */
  frontier: number;
  /** Racing pairs (by site) seen in both orders / seen at all. */
  flippedPairs: number;
  racingPairs: number;
}

export class ScheduleTree {
  private readonly root = node();
  private started = false;
  private readonly rng: Rng;
  /** Decision lists handed out and not yet recorded. */
  private pending = 0;
  /** Nodes in the tree (bounded by maxNodes, for memory). */
  private size = 1;
  private recorded = 0;
  /** Orders of racing site pairs seen, `a>b` = site a's access ran first. */
  private readonly orders = new Set<string>();

  /**
   * @param dependence conflicting accesses; with it, DPOR backtrack sets and sleep sets
   * @param siteWidths byte width per instrumentation site (index: site - 10000), handed to the scheduler for its sleep sets
   */
  constructor(seed: number, private readonly threads: number, private readonly maxNodes = 2_000_000, private readonly dependence: Dependence | null = null, private readonly siteWidths: number[] = []) {
    this.rng = createRng(seed);
  }

  /** No untried alternative is left and every handed-out run came back. */
  get exhausted(): boolean {
    return this.started && this.pending === 0 && !this.hasUntried(this.root);
  }

  stats(): ExploreStats {
    let frontier = 0;
    const walk = (n: Node): void => {
      for (const t of this.untried(n)) if (t >= 0) frontier++;
      for (const k of n.kids.values()) walk(k);
    };
    walk(this.root);
    let flipped = 0;
    for (const o of this.orders) {
      const [a, b] = o.split(">");
      if (this.orders.has(`${b}>${a}`) && a! < b!) flipped++;
    }
    const pairs = new Set([...this.orders].map((o) => o.split(">").sort().join("|"))).size;
    return { recorded: this.recorded, frontier, flippedPairs: flipped, racingPairs: pairs };
  }

  /**
   * Up to `max` new runs. Systematic: the deepest untried alternatives first (ties in
   * seeded order). Guided: alternatives that reverse a racing pair not yet seen reversed
   * first, then any, in seeded order across the whole tree. After either the running
   * thread goes on, under the sleep set, so each run is a new order of racing accesses.
   * Guided, when nothing is left to explore: seeded random token runs.
   */
  next(max: number, guided = false): RunSpec[] {
    if (!this.started) {
      this.started = true;
      this.pending++;
      return [this.spec([], guided)];
    }
    const prefixes = guided ? this.guidedFrontier(max) : this.frontier(max);
    if (guided && prefixes.length < max && this.exhausted) while (prefixes.length < max) prefixes.push([]);
    this.pending += prefixes.length;
    return prefixes.map((p) => this.spec(p, guided));
  }

  /** Add a finished run's decisions and candidate sets to the tree. */
  record(res: RunResult): void {
    // (The alternative a run was handed out for is already marked tried, even if the run diverged from it.)
    this.pending = Math.max(0, this.pending - 1);
    this.recorded++;
    const cands = res.cands ?? [];
    const dec = res.decisions;
    const accs = this.dependence && res.accs ? this.accessesOf(dec, cands, res.accs) : null;
    const path: Node[] = [];
    let at = this.root;
    for (let i = 0; i < dec.length; i++) {
      const d = dec[i]!;
      if (at.mask < 0) {
        at.mask = cands[i] ?? 1 << d;
        if (this.dependence) at.backtrack.add(d);
        else for (let t = 0; t < 31; t++) if (at.mask & (1 << t)) at.backtrack.add(t);
      }
      if (accs) for (const [t, a] of accs[i]!) if (!at.acc.has(t)) at.acc.set(t, a);
      at.tried.add(d);
      path.push(at);
      let k = at.kids.get(d);
      if (!k) {
        if (this.size >= this.maxNodes) return;
        k = node(this.dependence ? (at.kidSleep.get(d) ?? this.sleepAfter(at, d, at.sleep)) : undefined);
        at.kidSleep.delete(d);
        at.kids.set(d, k);
        this.size++;
      }
      at = k;
    }
    if (this.dependence && res.accs) this.addRaces(res.decisions, res.accs, path);
  }

  /** Per step, the access each candidate makes when chosen there: its next step's access (a parked thread's pending access does not change). */
  private accessesOf(dec: number[], cands: number[], accs: number[]): Map<number, Access>[] {
    const n = Math.min(dec.length, accs.length >> 1);
    const nextOf = new Map<number, Access>();
    const out: Map<number, Access>[] = [];
    for (let i = n - 1; i >= 0; i--) {
      nextOf.set(dec[i]!, { addr: accs[2 * i]!, site: accs[2 * i + 1]! >> 2, kind: accs[2 * i + 1]! & 3 });
      const m = new Map<number, Access>();
      const mask = cands[i] ?? 1 << dec[i]!;
      for (const [t, a] of nextOf) if (mask & (1 << t)) m.set(t, a);
      out[i] = m;
    }
    return out;
  }

  /** The sleep set after taking `t` at `at` from sleep set `base`: the threads whose step is independent of t's. */
  private sleepAfter(at: Node, t: number, base: Map<number, Access>): Map<number, Access> {
    const out = new Map<number, Access>();
    const a = at.acc.get(t);
    for (const [q, b] of base) if (q !== t && a && !this.dependence!(a, b)) out.set(q, b);
    return out;
  }

  /**
   * Source-DPOR (Abdulla et al., POPL 2014): for each race of the run, step k then a
   * conflicting step i of another thread with no other happens-before path between
   * them, the node before k must explore a schedule where i's thread gets there first:
   * with v = the steps after k not ordered after it, then i, some thread whose first
   * step in v waits for nothing else in v (an initial of v) is added there, unless
   * one is already planned or asleep (explored in an equivalent order elsewhere).
   */
  private addRaces(dec: number[], accs: number[], path: Node[]): void {
    const dep = this.dependence!;
    const n = Math.min(dec.length, path.length, accs.length >> 1);
    const T = this.threads;
    const acc = (i: number): Access => ({ addr: accs[2 * i]!, site: accs[2 * i + 1]! >> 2, kind: accs[2 * i + 1]! & 3 });
    const A = [...Array(n).keys()].map(acc);
    // clock[i][q]: the last step of thread q that happens before step i (inclusive), -1 none.
    const clock: Int32Array[] = [];
    const last = new Int32Array(T).fill(-1);
    const races: [number, number][] = [];
    for (let i = 0; i < n; i++) {
      const p = dec[i]!;
      const known = last[p]! >= 0 ? Int32Array.from(clock[last[p]!]!) : new Int32Array(T).fill(-1);
      if (A[i]!.addr >= 0)
        for (let k = i - 1; k >= 0; k--) {
          const q = dec[k]!;
          if (q === p || !dep(A[k]!, A[i]!)) continue;
          if (k > known[q]!) {
            races.push([k, i]);
            for (let t = 0; t < T; t++) if (clock[k]![t]! > known[t]!) known[t] = clock[k]![t]!;
          }
          this.orders.add(`${A[k]!.site}>${A[i]!.site}`);
        }
      known[p] = i;
      clock.push(known);
      last[p] = i;
    }
    const hb = (a: number, b: number) => clock[b]![dec[a]!]! >= a;
    for (const [k, i] of races) {
      const v: number[] = [];
      for (let j = k + 1; j < i; j++) if (!hb(k, j)) v.push(j);
      v.push(i);
      const initials: number[] = [];
      const seen = new Set<number>();
      v.forEach((e, x) => {
        const r = dec[e]!;
        if (seen.has(r)) return;
        seen.add(r);
        if (!v.slice(0, x).some((w) => hb(w, e))) initials.push(r);
      });
      this.race(path[k]!, dec[i]!, initials, `${A[i]!.site}>${A[k]!.site}`);
    }
  }

  private race(at: Node, p: number, initials: number[], flip: string): void {
    if (initials.some((t) => at.backtrack.has(t) || at.tried.has(t))) return;
    const ok = initials.filter((t) => at.mask & (1 << t) && !at.sleep.has(t));
    const t = ok.includes(p) ? p : ok[0];
    if (t === undefined) return;
    at.backtrack.add(t);
    at.flips.set(t, flip);
  }

  private spec(replay: number[], guided: boolean): RunSpec {
    const spec: RunSpec = { mode: 1, seed: this.rng.u32() | 0, strategy: guided ? "auto" : "dfs", startOrder: [...Array(this.threads).keys()], replay, wantCands: true, freeEntry: true, ...(guided && !replay.length ? { randomTail: true } : {}) };
    if (this.dependence && replay.length) {
      // The new branch sleeps on the alternatives explored before it at its node (and on what slept there), where independent of it.
      const at = this.nodeAt(replay.slice(0, -1));
      const t = replay[replay.length - 1]!;
      if (at) {
        const base = new Map(at.sleep);
        for (const q of at.tried) {
          if (q === t) break; // (tried keeps the order alternatives were taken in: only earlier ones sleep)
          if (at.acc.has(q)) base.set(q, at.acc.get(q)!);
        }
        const sleep = this.sleepAfter(at, t, base);
        at.kidSleep.set(t, sleep);
        let mask = 0;
        for (const q of sleep.keys()) mask |= 1 << q;
        if (mask) Object.assign(spec, { sleep: mask, siteWidths: this.siteWidths });
      }
    }
    return spec;
  }

  private untried(n: Node): number[] {
    const out: number[] = [];
    if (n.mask > 0) for (const t of n.backtrack) if (n.mask & (1 << t) && !n.tried.has(t) && !n.sleep.has(t)) out.push(t);
    return out;
  }

  private hasUntried(n: Node): boolean {
    if (this.untried(n).length) return true;
    for (const k of n.kids.values()) if (this.hasUntried(k)) return true;
    return false;
  }

  private collect(): { path: number[]; at: Node; t: number }[] {
    const found: { path: number[]; at: Node; t: number }[] = [];
    const walk = (n: Node, path: number[]): void => {
      for (const t of this.untried(n)) found.push({ path: [...path, t], at: n, t });
      for (const [t, k] of n.kids) walk(k, [...path, t]);
    };
    walk(this.root, []);
    return found;
  }

  /** Takes (marks as tried) the `max` deepest untried alternatives. */
  private frontier(max: number): number[][] {
    const found = this.collect().map((f) => ({ ...f, key: this.rng.u32() }));
    found.sort((a, b) => b.path.length - a.path.length || a.key - b.key);
    const out = found.slice(0, max);
    for (const f of out) f.at.tried.add(f.t);
    return out.map((f) => f.path);
  }

  /** Takes the `max` untried alternatives that reverse racing pairs not yet seen reversed, then any, in seeded order. */
  private guidedFrontier(max: number): number[][] {
    const found = this.collect().map((f) => {
      const flip = f.at.flips.get(f.t);
      return { ...f, fresh: flip !== undefined && !this.orders.has(flip) ? 1 : 0, key: this.rng.u32() };
    });
    found.sort((a, b) => b.fresh - a.fresh || a.key - b.key);
    const out = found.slice(0, max);
    for (const f of out) f.at.tried.add(f.t);
    return out.map((f) => f.path);
  }

  private nodeAt(path: number[]): Node | null {
    let at: Node | undefined = this.root;
    for (const d of path) if (!(at = at.kids.get(d))) return null;
    return at;
  }
}
