// Named numbers of triage: how many frames make a state, when two states are
// similar, and the input bounds that keep parsing fast on hostile text.
// ClusterFuzz's crash comparer (crash_comparer.py) is the model: a state is
// the top 3 frames, two states are similar when at least 2 frames agree in
// order, and string similarity is 2*common/(len a + len b) via Levenshtein.

/** Frames kept in a crash state (and compared). */
export const STATE_FRAME_COUNT = 3;

/** Ordered common frames (longest common subsequence) two states need before they may be called similar. ClusterFuzz: 2. */
export const SAME_FRAMES_THRESHOLD = 2;

/** Weight of the ordered frame overlap in the similarity score. */
export const FRAME_WEIGHT = 0.6;

/** Weight of the normalized-message string similarity in the similarity score. */
export const MESSAGE_WEIGHT = 0.4;

/**
 * Score at or above which a crash joins an existing bucket (rule "similar").
 * With the weights above: all compared frames shared needs message similarity >= 0.375;
 * 2 of 3 frames shared needs >= 0.875 (nearly the same message).
 */
export const SIMILARITY_THRESHOLD = 0.75;

/**
 * Message similarity at or above which two exit-code failures without frames
 * (kind `exit`: the exit code and the program's own last stderr line) are
 * similar. The line is all there is to compare; one that differs only in
 * run data the masks keep (the depth of a path inside a temp dir: mkdir
 * '<tmp>/out' vs '<tmp>/out/x') scores about 0.95, another line of the same
 * program far lower. Other frameless kinds (oom, signals, oracles with a
 * program shape) still match only exactly: their messages are core's, and
 * near-identical ones name different failures.
 */
export const FRAMELESS_MESSAGE_THRESHOLD = 0.9;

/** Alternatives recorded with a bucket choice. */
export const MAX_ALTERNATIVES = 5;

/** Characters of a message compared by string similarity (Levenshtein is quadratic). */
export const MESSAGE_COMPARE_CHARS = 200;

/** Characters of stack text parsed; the rest is ignored. */
export const MAX_STACK_CHARS = 256 * 1024;

/** Characters of one line given to the frame patterns (longer lines are cut). */
export const MAX_LINE_CHARS = 1000;

/** Frames parsed per section (JS, native...). */
export const MAX_FRAMES = 200;

/** Characters kept of a function name or a file in a frame. */
export const MAX_NAME_CHARS = 200;

/** Characters kept of a normalized message. */
export const MAX_MESSAGE_CHARS = 500;
