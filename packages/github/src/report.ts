// The result of a pull-request run, as every reporter (check run, SARIF,
// Markdown summary) reads it. A bucket's class comes from replaying its
// reproducer on both sides of the pull request:
//   reproduces on head, not on base -> new          (the PR brought it: fail)
//   reproduces on both              -> pre-existing (known before the PR)
//   reproduces on base, not on head -> fixed        (the PR removed it)
//   reproduces on neither           -> unreproduced (flaky or lost; reported, never failing)

export type BucketClass = "new" | "pre-existing" | "fixed" | "unreproduced";

/** Where a bucket's top meaningful frame lies, relative to the repository root. */
export interface SourceLocation {
  /** Repository-relative path with `/` separators, e.g. `src/parse.js`. */
  path: string;
  /** 1-based line. */
  line: number;
  /** 1-based column, when known. */
  column?: number;
}

export interface ReplayTally {
  runs: number;
  hits: number;
}

export interface PullRequestBucket {
  /** The farm's bucket id. */
  id: string;
  kind: string;
  /** One-line title, e.g. `uncaught Error in parse (src/parse.js)`. */
  title: string;
  signature: string;
  /** The crash message of the head replay (or of the base replay for a fixed bucket). */
  message: string;
  class: BucketClass;
  head: ReplayTally;
  base: ReplayTally;
  /** Top meaningful frame inside the repository; absent when every frame lies outside it. */
  location?: SourceLocation;
  /** A command that reproduces the crash, e.g. `fuzzfarm repro b_...`. */
  reproduce: string;
}

export interface PullRequestReport {
  /** Repository-relative path of the fuzz target. */
  target: string;
  engine: string;
  headSha: string;
  baseRef: string;
  baseSha: string;
  campaignId: string;
  seconds: number;
  executions: number;
  buckets: PullRequestBucket[];
}

export function classify(head: ReplayTally, base: ReplayTally): BucketClass {
  if (head.hits > 0) return base.hits > 0 ? "pre-existing" : "new";
  return base.hits > 0 ? "fixed" : "unreproduced";
}

export type Conclusion = "success" | "failure" | "neutral";

/** failure when a new bucket exists; neutral when nothing ran (no execution and no bucket replayed); success otherwise. */
export function conclusionOf(r: PullRequestReport): Conclusion {
  if (r.buckets.some((b) => b.class === "new")) return "failure";
  return r.executions > 0 || r.buckets.length > 0 ? "success" : "neutral";
}

export function countByClass(r: PullRequestReport): Record<BucketClass, number> {
  const out: Record<BucketClass, number> = { new: 0, "pre-existing": 0, fixed: 0, unreproduced: 0 };
  for (const b of r.buckets) out[b.class]++;
  return out;
}
