// The one rule for "is this the same bug as that bucket?". Classification
// (coordinator), replay counting (coordinator), `fuzzfarm repro` (CLI),
// minimization (worker and the engines' reducers) and an engine's own
// finding dedupe all ask it through `matchesBucket` / `isSameBug`, so a
// replay counts as a hit exactly when classification would have filed the
// run in the bucket.
import type { Finding, Outcome } from "@fuzzfarm/protocol";
import { chooseBucket } from "./choose-bucket";
import { crashState } from "./crash-state";
import { normalizeMessage } from "./normalize";
import type { BucketCandidate, CrashState, FrameLang, FrameLike } from "./types";

/** What the rule needs of a crash state (a full CrashState fits). */
export type MatchableState = Pick<CrashState, "kind" | "signature" | "frames" | "normalizedMessage">;

/**
 * Whether a crash state is the same bug as `bucket`. The rule, in full:
 *
 * 1. Both sides are crash states computed by {@link crashState} with the SAME
 *    `rootDir`: the root the coordinator classified the bucket with (its
 *    `rootDir` option). A state is the finding's kind, its type (error class
 *    and code, signal, exit code, wasm trap, oracle name) and its top
 *    STATE_FRAME_COUNT meaningful frames keyed `fn@file`: paths relative to
 *    rootDir, dependencies from their last `node_modules/`, temp dirs masked,
 *    wasm modules as `wasm://wasm`, line and column numbers never part of the
 *    key. An oracle finding with `detail.shape` is `oracle:<name> | shape:<shape>`.
 * 2. The kinds (`findingKind`: crash kind, `hang` or `oracle`) are equal.
 *    The engine is not part of the rule (classification never used it):
 *    a node-engine run and an input-engine run of one program failing at the
 *    same frames are one bug.
 * 3. Classification would file the state in `bucket`: {@link chooseBucket}
 *    over `bucket` and `others` picks `bucket`. That is an equal signature
 *    ("exact"), or else `bucket` is the most similar same-kind candidate that
 *    is similar at all (same crashing frame, enough ordered common frames,
 *    score over SIMILARITY_THRESHOLD with the normalized messages), and no
 *    other candidate has the exact signature.
 *
 * `others` are the target's other buckets, the candidates classification
 * sees (`bucketCandidates`); `bucket` itself may be among them. Without them a
 * state only similar to `bucket` but equal to another bucket would count.
 * Manual merges and splits (routes in packages/db) are applied on top of this
 * rule by the database when a report is recorded.
 */
export function matchesBucket(state: MatchableState, bucket: BucketCandidate, others: readonly BucketCandidate[] = []): boolean {
  if (state.kind !== bucket.kind) return false;
  const rest = others.filter((o) => o.id !== bucket.id && o.kind === bucket.kind);
  return chooseBucket(state, [bucket, ...rest]).bucketId === bucket.id;
}

export interface SameBugOptions {
  /** The root the bucket was classified with (the coordinator's `rootDir`). Required: another root is another signature. */
  rootDir: string;
  /** The target's other buckets, as classification sees them. Default: none. */
  others?: readonly BucketCandidate[];
}

/** Whether a run's outcome is the same bug as `bucket` ({@link matchesBucket}); a run that did not fail never is. */
export function isSameBug(outcome: Outcome, bucket: BucketCandidate, opts: SameBugOptions): boolean {
  if (outcome.kind === "ok") return false;
  return matchesBucket(crashState(outcome, { rootDir: opts.rootDir }), bucket, opts.others);
}

/** A crash state as the one-report bucket it would found (same id space as stored buckets). */
export function stateAsBucket(state: MatchableState, id: string): BucketCandidate {
  return { id, kind: state.kind, signature: state.signature, frames: state.frames, normalizedMessage: state.normalizedMessage };
}

/** A finding as the one-report bucket it would found, its state computed from `rootDir`. */
export function findingAsBucket(finding: Finding, id: string, opts: { rootDir: string }): BucketCandidate {
  return stateAsBucket(crashState(finding, opts), id);
}

/** A stored bucket as the database returns it (frames are JSON; the first report's triage may hold its normalized message). */
export interface StoredBucket {
  id: string;
  kind: string;
  signature: string;
  frames: unknown;
  /** The first report's `triage.normalizedMessage`, when recorded. */
  normalizedMessage?: string | null;
  /** The first report's message: normalized with rootDir when no normalized message was recorded. */
  message?: string | null;
}

const LANGS: readonly FrameLang[] = ["js", "wasm", "native", "handle"];

function framesOf(v: unknown): FrameLike[] {
  if (!Array.isArray(v)) return [];
  const out: FrameLike[] = [];
  for (const f of v) {
    if (!f || typeof f !== "object") continue;
    const { fn, file, lang } = f as Record<string, unknown>;
    if (typeof fn !== "string" || typeof file !== "string") continue;
    out.push(typeof lang === "string" && (LANGS as readonly string[]).includes(lang) ? { fn, file, lang: lang as FrameLang } : { fn, file });
  }
  return out;
}

/** A stored bucket as a candidate of the rule: frames checked, the message normalized with the same root as new states. */
export function bucketCandidate(b: StoredBucket, opts: { rootDir: string }): BucketCandidate {
  return {
    id: b.id,
    kind: b.kind,
    signature: b.signature,
    frames: framesOf(b.frames),
    normalizedMessage: b.normalizedMessage ?? normalizeMessage(b.message ?? "", { rootDir: opts.rootDir }),
  };
}
