// Guided search (NodeRacer's happens-before-guided postponement, with
// NACD's API model as weights and the farm's race-pair novelty as the order).
//
// An observation run (no perturbation) says which callbacks race: A and B
// were pending together and A ran first. A guided run postpones A until B
// has run (or a bound passes), which reverses the pair. Candidates are
// weighted by what their APIs are known to race on (close callbacks, reads,
// fs and child-process completions over immediates and internals) and by
// whether they touch the same resource (one site file, or one handle's events),
// and a pair whose reversed order some run has already produced is tried last.
//
// The pair travels to the preload as two numbers (params guideA / guideB:
// FNV-1a hashes of the site keys), because run parameters are numeric.
import type { TraceEvent } from "./trace";
import { siteKey } from "./trace";

/** FNV-1a, 31 bits: the same function as the preload's (strategies.cjs siteHash). */
export function siteHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) { h ^= key.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return (h >>> 0) & 0x7fffffff;
}

/**
 * The API model: how often a callback of this kind takes part in the event
 * races of real packages (NACD models the same APIs: fs, net/http sockets,
 * child processes, zlib, crypto, dns, timers; immediates and internals are
 * rarely one side of a bug).
 */
export const API_WEIGHT: Record<string, number> = {
  close: 3, read: 2.5, exit: 2.5, "worker.exit": 2, message: 2, fs: 2, "fs.promise": 2, timeout: 1.5,
  connect: 1.5, accept: 1, write: 1, shutdown: 1, zlib: 1.2, crypto: 1, dns: 1, immediate: 0.5,
};

/**
 * Pairs of callback kinds known to race in real packages (the bug reports
 * behind NACD's and NodeRacer's benchmarks): a child's output vs its exit,
 * a close vs a timer (keep-alive reuse), fs answers vs timers and vs each
 * other (check-then-act), messages of two ports. Multiplies the pair's weight.
 */
export const PAIR_WEIGHT: Record<string, number> = {
  "read|exit": 3, "close|timeout": 3, "timeout|close": 2, "fs|timeout": 2, "fs.promise|timeout": 2, "fs|fs": 2,
  "fs.promise|fs.promise": 2, "read|timeout": 2, "timeout|read": 1.5, "message|message": 2, "read|read": 1.5,
  "close|read": 1.5, "read|close": 1.5, "fs|read": 1.5, "read|fs": 1.5,
};

export interface RacePairCandidate {
  /** Site key (`kind@file:line`) of the callback to postpone. */
  postpone: string;
  /** Site key of the callback it waits for. */
  until: string;
  weight: number;
}

const fileOf = (site: string) => site.replace(/:\d+(:\d+)?$/, "");

/**
 * Racing pairs of an observation run: B was registered (pending) when A ran,
 * A ran first, both from sites the program can name. Postponing A until B
 * ran reverses them. Sorted by weight, heaviest first.
 */
export function raceCandidates(events: TraceEvent[], cap = 200): RacePairCandidate[] {
  const evs = events.filter((e) => !e.undelivered);
  const best = new Map<string, RacePairCandidate>();
  for (const a of evs) {
    if (a.site === "internal") continue;
    for (const b of evs) {
      if (b === a || b.site === "internal" || b.del <= a.del || b.reg >= a.del) continue;
      const ka = siteKey(a), kb = siteKey(b);
      if (ka === kb) continue;
      // same resource: the same handle's events, or callbacks registered in one file
      const same = a.id.split("#")[1]?.split(".")[0] === b.id.split("#")[1]?.split(".")[0] && a.site === b.site ? 2 : fileOf(a.site) === fileOf(b.site) ? 1.5 : 1;
      const w = (API_WEIGHT[a.kind] ?? 1) * (API_WEIGHT[b.kind] ?? 1) * (PAIR_WEIGHT[`${a.kind}|${b.kind}`] ?? 1) * same;
      const k = `${ka}|${kb}`;
      const old = best.get(k);
      if (!old || old.weight < w) best.set(k, { postpone: ka, until: kb, weight: w });
    }
  }
  return [...best.values()].sort((x, y) => y.weight - x.weight).slice(0, cap);
}

/**
 * Picks the next pair to reverse: pairs whose reversed order (`race:B|A`)
 * no run has produced yet come first; among them, sampling by weight with
 * the number of times a pair was already tried dividing its weight.
 */
export class GuidePicker {
  private tried = new Map<string, number>();
  constructor(private readonly candidates: RacePairCandidate[]) {}

  get size(): number { return this.candidates.length; }

  /** `seen`: race-pair features seen so far (`race:A|B`, A ran first). `draw`: a number in [0, 1). */
  next(seen: ReadonlySet<string>, draw: number): RacePairCandidate | null {
    if (this.candidates.length === 0) return null;
    const novel = this.candidates.filter((c) => !seen.has(`race:${c.until}|${c.postpone}`));
    const pool = novel.length ? novel : this.candidates;
    const w = pool.map((c) => c.weight / (1 + (this.tried.get(`${c.postpone}|${c.until}`) ?? 0)));
    let x = draw * w.reduce((s, v) => s + v, 0);
    let i = 0;
    for (; i < pool.length - 1; i++) { x -= w[i]!; if (x < 0) break; }
    const c = pool[i]!;
    const k = `${c.postpone}|${c.until}`;
    this.tried.set(k, (this.tried.get(k) ?? 0) + 1);
    return c;
  }
}

/** The run parameters of a guided run that reverses `c`. */
export function guideParams(c: RacePairCandidate): Record<string, number> {
  return { guideA: siteHash(c.postpone), guideB: siteHash(c.until) };
}
