// How alike two crash states are, after ClusterFuzz's crash comparer: the
// ordered overlap of their top frames (longest common subsequence of
// fn@file keys) and the Levenshtein similarity of their normalized messages,
// weighted into one score. Different kinds are never alike.
import { frameKey } from "./frames";
import {
  FRAME_WEIGHT,
  FRAMELESS_MESSAGE_THRESHOLD,
  MESSAGE_COMPARE_CHARS,
  MESSAGE_WEIGHT,
  SAME_FRAMES_THRESHOLD,
  SIMILARITY_THRESHOLD,
  STATE_FRAME_COUNT,
} from "./thresholds";
import type { FrameLike } from "./types";

/** What similarity needs of a state or a stored bucket. */
export interface Comparable {
  kind: string;
  frames: readonly FrameLike[];
  normalizedMessage: string;
}

export interface Comparison {
  /** Ordered common frames (LCS) among the top STATE_FRAME_COUNT of each. */
  commonFrames: number;
  /** commonFrames / frames of the shorter state (0 when either has none). */
  frameScore: number;
  /** Levenshtein similarity of the normalized messages, 0..1. */
  messageScore: number;
  /** FRAME_WEIGHT * frameScore + MESSAGE_WEIGHT * messageScore (0 for different kinds). */
  score: number;
  /** Same kind, same top frame, enough common frames, score >= SIMILARITY_THRESHOLD. */
  similar: boolean;
}

/** Edit distance (insert, delete, substitute: cost 1), two rows. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let prev = new Uint32Array(b.length + 1);
  let cur = new Uint32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const sub = prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1);
      cur[j] = Math.min(sub, prev[j]! + 1, cur[j - 1]! + 1);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** ClusterFuzz's ratio: (len a + len b - distance) / (len a + len b); 1 for two empty strings. */
export function stringSimilarity(a: string, b: string): number {
  a = a.slice(0, MESSAGE_COMPARE_CHARS);
  b = b.slice(0, MESSAGE_COMPARE_CHARS);
  const sum = a.length + b.length;
  if (sum === 0) return 1;
  return (sum - levenshtein(a, b)) / sum;
}

/** Length of the longest common subsequence of two key lists. */
export function commonSubsequence(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = a[i - 1] === b[j - 1] ? diag + 1 : Math.max(up, row[j - 1]!);
      diag = up;
    }
  }
  return row[b.length]!;
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000;

/** Compare two states in detail. */
export function compareStates(a: Comparable, b: Comparable): Comparison {
  if (a.kind !== b.kind) return { commonFrames: 0, frameScore: 0, messageScore: 0, score: 0, similar: false };
  const ka = a.frames.slice(0, STATE_FRAME_COUNT).map(frameKey);
  const kb = b.frames.slice(0, STATE_FRAME_COUNT).map(frameKey);
  const messageScore = round(stringSimilarity(a.normalizedMessage ?? "", b.normalizedMessage ?? ""));
  if (!ka.length || !kb.length) {
    // two exit-code failures have nothing but their stderr line to compare; one with frames and one without are not alike
    const similar = a.kind === "exit" && !ka.length && !kb.length && messageScore >= FRAMELESS_MESSAGE_THRESHOLD;
    return { commonFrames: 0, frameScore: 0, messageScore, score: round(MESSAGE_WEIGHT * messageScore), similar };
  }
  const commonFrames = commonSubsequence(ka, kb);
  const shorter = Math.min(ka.length, kb.length);
  const frameScore = round(commonFrames / shorter);
  const score = round(FRAME_WEIGHT * frameScore + MESSAGE_WEIGHT * messageScore);
  const enoughFrames = commonFrames >= Math.min(SAME_FRAMES_THRESHOLD, shorter);
  // The crashing frame must be the same: the same message thrown from two
  // functions is two bugs (two throw sites), however much of the caller chain
  // they share; the same throw site reached from other callers is one.
  const sameTop = ka[0] === kb[0];
  return { commonFrames, frameScore, messageScore, score, similar: sameTop && enoughFrames && score >= SIMILARITY_THRESHOLD };
}

/** The similarity score of two states, 0..1 (0 for different kinds). */
export function similarity(a: Comparable, b: Comparable): number {
  return compareStates(a, b).score;
}
