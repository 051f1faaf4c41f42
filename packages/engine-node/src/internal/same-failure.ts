// Which runs of one job fail as the same bug: triage's one rule
// (matchesBucket), each distinct failure of the job standing as a one-report
// bucket. Used for the job's finding dedupe, the confirmation replays and the
// schedule minimizer, so the engine never keeps one bug twice or merges two
// that classification would split. The rule needs one root for frame paths:
// inside one job the target's directory serves (every side of a comparison
// is computed with it); the farm's minimize jobs bring the coordinator's own
// rule instead (MinimizeOptions.sameFailure).
import type { Finding, Outcome } from "@fuzzfarm/protocol";
import { crashState, findingAsBucket, matchesBucket, stateAsBucket, type BucketCandidate } from "@fuzzfarm/triage";

/** `o` fails as the same bug as `reference` (paths relative to rootDir). */
export function sameFailureAs(reference: Finding, rootDir: string): (o: Outcome) => boolean {
  const bucket = findingAsBucket(reference, "reference", { rootDir });
  return (o) => o.kind !== "ok" && matchesBucket(crashState(o, { rootDir }), bucket);
}

/** The distinct failures of a job, in the order they were first seen. */
export class FailureSet {
  private readonly known: BucketCandidate[] = [];
  constructor(private readonly rootDir: string) {}

  /** Records `f` unless it is the same bug as one already recorded; true when it is new. */
  add(f: Finding): boolean {
    const before = this.known.length;
    this.keyOf(f);
    return this.known.length > before;
  }

  /**
   * The id ("f0", "f1"...) of the recorded failure `f` is the same bug as, recording it under a new
   * id when it matches none: the job recorder's finding key.
   */
  keyOf(f: Finding): string {
    const state = crashState(f, { rootDir: this.rootDir });
    const same = this.known.find((b) => matchesBucket(state, b, this.known));
    if (same) return same.id;
    const id = `f${this.known.length}`;
    this.known.push(stateAsBucket(state, id));
    return id;
  }
}
