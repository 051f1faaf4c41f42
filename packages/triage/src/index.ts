// @fuzzfarm/triage: crash triage as pure functions, like ClusterFuzz.
//   stack text --parseStack--> frames (noise marked by the pattern table)
//   finding    --crashState--> {kind, type, top frames, signature, title, normalizedMessage}
//   state + existing buckets --chooseBucket--> exact | similar | new (+ alternatives scored)
//   state + a bucket --matchesBucket--> same bug or not (the one rule every path uses)
// No I/O, no clock, no randomness: the same input always gives the same output.
export { parseStack } from "./internal/parse-stack";
export { crashState } from "./internal/crash-state";
export { chooseBucket } from "./internal/choose-bucket";
export {
  matchesBucket,
  isSameBug,
  stateAsBucket,
  findingAsBucket,
  bucketCandidate,
  type MatchableState,
  type SameBugOptions,
  type StoredBucket,
} from "./internal/same-bug";
export { normalizeMessage, type NormalizeOptions } from "./internal/normalize";
export { similarity, compareStates, stringSimilarity, type Comparable, type Comparison } from "./internal/similarity";
export { frameKey } from "./internal/frames";
export { STACK_PATTERNS, type StackPattern, type PatternRole } from "./internal/patterns";
export { HANG_HANDLE_KEYS, HANG_THREAD_KEYS } from "./internal/hang";
export {
  STATE_FRAME_COUNT,
  SAME_FRAMES_THRESHOLD,
  FRAME_WEIGHT,
  MESSAGE_WEIGHT,
  SIMILARITY_THRESHOLD,
  MAX_ALTERNATIVES,
  MESSAGE_COMPARE_CHARS,
  MAX_STACK_CHARS,
  MAX_LINE_CHARS,
  MAX_FRAMES,
  MAX_NAME_CHARS,
  MAX_MESSAGE_CHARS,
} from "./internal/thresholds";
export type {
  Frame,
  FrameLang,
  FrameLike,
  ParseOptions,
  CrashState,
  CrashStateOptions,
  BucketCandidate,
  BucketChoice,
  BucketRule,
} from "./internal/types";
