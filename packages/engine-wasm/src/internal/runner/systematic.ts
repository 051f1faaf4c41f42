// Systematic schedule exploration (the `dfs` strategy): stateless model checking
// over token decisions, as CHESS does. Token mode is deterministic, so a run is
// named by its decision list; each run reports, per decision, which threads
// could have been chosen. The explorer keeps the tree of decision lists seen,
// and every untried alternative at a node is a new run: replay the path to the
// node, take the alternative, then let the running thread go on (no further
// preemption). When no alternative is left, every schedule at yield-point
// granularity has run once: the exploration is exhausted.
import { Rng } from "../rng";
import type { RunResult, RunSpec } from "./supervisor";

interface Node {
  /** Candidate threads at this decision (bitmask); -1 until a run passed here. */
  mask: number;
  kids: Map<number, Node>;
  /** Alternatives already run or handed out. */
  tried: Set<number>;
}

const node = (): Node => ({ mask: -1, kids: new Map(), tried: new Set() });

export class ScheduleTree {
  private readonly root = node();
  private started = false;
  private readonly rng: Rng;
  /** Decision lists handed out and not yet recorded. */
  private pending = 0;
  /** Nodes in the tree (bounded by maxNodes, for memory). */
  private size = 1;

  constructor(seed: number, private readonly threads: number, private readonly maxNodes = 2_000_000) {
    this.rng = new Rng(seed);
  }

  /** No untried alternative is left and every handed-out run came back. */
  get exhausted(): boolean {
    return this.started && this.pending === 0 && !this.hasUntried(this.root);
  }

  /** Up to `max` new runs: the deepest untried alternatives first (ties in seeded order). */
  next(max: number): RunSpec[] {
    if (!this.started) {
      this.started = true;
      this.pending++;
      return [this.spec([])];
    }
    const prefixes = this.frontier(max);
    this.pending += prefixes.length;
    return prefixes.map((p) => this.spec(p));
  }

  /** Add a finished run's decisions and candidate sets to the tree. */
  record(res: RunResult): void {
    // (The alternative a run was handed out for is already marked tried, even if the run diverged from it.)
    this.pending = Math.max(0, this.pending - 1);
    const cands = res.cands ?? [];
    let at = this.root;
    for (let i = 0; i < res.decisions.length; i++) {
      const d = res.decisions[i]!;
      if (at.mask < 0) at.mask = cands[i] ?? 1 << d;
      at.tried.add(d);
      let k = at.kids.get(d);
      if (!k) {
        if (this.size >= this.maxNodes) return;
        k = node();
        at.kids.set(d, k);
        this.size++;
      }
      at = k;
    }
  }

  private spec(replay: number[]): RunSpec {
    return { mode: 1, seed: this.rng.u32() | 0, strategy: "dfs", startOrder: [...Array(this.threads).keys()], replay, wantCands: true };
  }

  private hasUntried(n: Node): boolean {
    for (let t = 0; t < 31; t++) if (n.mask > 0 && n.mask & (1 << t) && !n.tried.has(t)) return true;
    for (const k of n.kids.values()) if (this.hasUntried(k)) return true;
    return false;
  }

  /** Takes (marks as tried) the `max` best untried alternatives. */
  private frontier(max: number): number[][] {
    const found: { path: number[]; key: number }[] = [];
    const walk = (n: Node, path: number[]): void => {
      if (n.mask > 0)
        for (let t = 0; t < 31; t++) if (n.mask & (1 << t) && !n.tried.has(t)) found.push({ path: [...path, t], key: this.rng.u32() });
      for (const [t, k] of n.kids) walk(k, [...path, t]);
    };
    walk(this.root, []);
    found.sort((a, b) => b.path.length - a.path.length || a.key - b.key);
    const out = found.slice(0, max).map((f) => f.path);
    for (const p of out) this.nodeAt(p.slice(0, -1))!.tried.add(p[p.length - 1]!);
    return out;
  }

  private nodeAt(path: number[]): Node | null {
    let at: Node | undefined = this.root;
    for (const d of path) if (!(at = at.kids.get(d))) return null;
    return at;
  }
}
