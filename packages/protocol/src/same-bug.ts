// What a minimize job must keep failing as: the bucket in the shape triage's
// "same bug" rule (matchesBucket) compares against, the target's other
// same-kind buckets (classification's candidates) and the root directory the
// coordinator classified them with. The worker has no database, so the
// coordinator puts this in the payload; triage's BucketCandidate fits it.
import { z } from "zod";

/** Most other buckets carried with a minimize job (bucketCandidates takes 500). */
export const MAX_RULE_BUCKETS = 1_000;

/** A stored frame as the rule keys it: `fn@file` (lines never count). */
export const RuleFrame = z.object({
  fn: z.string().max(10_000),
  file: z.string().max(10_000),
  lang: z.enum(["js", "wasm", "native", "handle"]).optional(),
});

/** A bucket as triage compares against it. */
export const RuleBucket = z.object({
  id: z.string().min(1),
  kind: z.string().min(1),
  signature: z.string(),
  frames: z.array(RuleFrame).max(50).readonly(),
  normalizedMessage: z.string(),
});
export type RuleBucket = z.infer<typeof RuleBucket>;

export const SameBugRule = z.object({
  /** The coordinator's root: frame paths of both sides are relative to it. */
  rootDir: z.string().min(1),
  /** The bucket the run must still be. */
  bucket: RuleBucket,
  /** The target's other same-kind buckets: a run that classification would file in one of them is not the bucket's bug. */
  others: z.array(RuleBucket).max(MAX_RULE_BUCKETS).default([]),
});
export type SameBugRule = z.infer<typeof SameBugRule>;
