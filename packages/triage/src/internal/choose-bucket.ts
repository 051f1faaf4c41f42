// Which existing bucket a new crash state joins. An equal signature wins
// ("exact"); else the most similar same-kind bucket at or above the
// threshold ("similar"); else a new bucket. The alternatives scored are
// returned so the caller records why on the report.
import { compareStates } from "./similarity";
import { MAX_ALTERNATIVES } from "./thresholds";
import type { BucketCandidate, BucketChoice, CrashState } from "./types";

type Scored = { id: string; score: number; similar: boolean };

const byScoreThenId = (a: Scored, b: Scored): number => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Choose the bucket for a state among candidates (any order; the result does not depend on it). Never merges different kinds. */
export function chooseBucket(state: Pick<CrashState, "kind" | "signature" | "frames" | "normalizedMessage">, candidates: readonly BucketCandidate[]): BucketChoice {
  const sameKind = candidates.filter((c) => c.kind === state.kind);
  const exact = sameKind.filter((c) => c.signature === state.signature).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))[0];
  const scored: Scored[] = sameKind
    .filter((c) => c !== exact)
    .map((c) => {
      const cmp = compareStates(state, c);
      return { id: c.id, score: cmp.score, similar: cmp.similar };
    })
    .sort(byScoreThenId);
  const alternatives = (chosen: string | null) =>
    scored.filter((s) => s.id !== chosen && s.score > 0).slice(0, MAX_ALTERNATIVES).map(({ id, score }) => ({ id, score }));
  if (exact) return { bucketId: exact.id, rule: "exact", score: 1, alternatives: alternatives(exact.id) };
  const best = scored.find((s) => s.similar);
  if (best) return { bucketId: best.id, rule: "similar", score: best.score, alternatives: alternatives(best.id) };
  return { bucketId: null, rule: "new", score: scored[0]?.score ?? 0, alternatives: alternatives(null) };
}
