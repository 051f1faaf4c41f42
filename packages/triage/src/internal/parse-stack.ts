// Stack text -> frames. One pass over the lines, each tried against the
// table's frame entries in order. Frames come in blocks (the V8 `at` block,
// a native backtrace, the `JavaScript stack trace` of an abort, V8's stack
// dump); only the FIRST block of each syntax is kept, so an error's
// `[cause]` or a repeated "Details" dump does not leak into the state.
// A block ends at the first non-blank line that is not a frame of its syntax.
import { jsFrame, nativeFrame } from "./frames";
import { patternsOf } from "./patterns";
import { MAX_FRAMES, MAX_LINE_CHARS, MAX_STACK_CHARS } from "./thresholds";
import type { Frame, ParseOptions } from "./types";

/** Which block a frame pattern feeds. */
const BLOCK_OF: Record<string, string> = {
  "native-frame": "native",
  "v8-at-frame": "at",
  "v8-verbose-frame": "verbose",
  "v8-verbose-noise": "verbose",
  "js-numbered-frame": "numbered",
};

export interface Scan {
  /** The text's lines (cut to MAX_LINE_CHARS), for header parsing. */
  lines: string[];
  /** Frames in text order, each block's frames together. */
  frames: Frame[];
  /** Line index of the first frame of the first `at` block, or -1. */
  firstAtLine: number;
}

/** Try the frame patterns on one line: a frame, "noise" (a frame line without a location), or null (not a frame line). */
function matchFrame(line: string, rootDir: string | undefined): { block: string; frame: Frame | null } | null {
  for (const p of patternsOf("frame")) {
    const m = p.re.exec(line);
    if (!m) continue;
    const block = BLOCK_OF[p.id]!;
    switch (p.id) {
      case "native-frame":
        return { block, frame: nativeFrame(m[3] ?? "", m[4]) };
      case "v8-at-frame": {
        const isAsync = m[1] === "async";
        const f = m[3] !== undefined ? jsFrame(m[2], m[3], isAsync, rootDir, false) : jsFrame(undefined, m[4] ?? "", isAsync, rootDir, true);
        if (f) return { block, frame: f };
        continue;
      }
      case "v8-verbose-frame": {
        const f = jsFrame(m[2], `${m[3]}:${m[4]}`, false, rootDir, true);
        if (f) return { block, frame: f };
        continue;
      }
      case "v8-verbose-noise":
        return { block, frame: null };
      case "js-numbered-frame": {
        const f = m[3] !== undefined ? jsFrame(m[2], m[3], false, rootDir, true) : jsFrame(undefined, m[4] ?? "", false, rootDir, true);
        if (f) return { block, frame: f };
        continue;
      }
    }
  }
  return null;
}

/** Split and scan a stack text (bounded: MAX_STACK_CHARS of text, MAX_LINE_CHARS per line, MAX_FRAMES per block). */
export function scanStack(text: string, opts: ParseOptions = {}): Scan {
  const src = typeof text === "string" ? text : String(text ?? "");
  const lines = src.slice(0, MAX_STACK_CHARS).split(/\r\n|\r|\n/).map((l) => (l.length > MAX_LINE_CHARS ? l.slice(0, MAX_LINE_CHARS) : l));
  const state = new Map<string, { done: boolean; count: number }>();
  const frames: Frame[] = [];
  let firstAtLine = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    const hit = matchFrame(line, opts.rootDir);
    if (!hit) {
      for (const b of state.values()) b.done = true;
      continue;
    }
    let b = state.get(hit.block);
    if (!b) state.set(hit.block, (b = { done: false, count: 0 }));
    if (b.done || !hit.frame || b.count >= MAX_FRAMES) continue;
    if (hit.block === "at" && firstAtLine < 0) firstAtLine = i;
    b.count++;
    frames.push(hit.frame);
  }
  return { lines, frames, firstAtLine };
}

/**
 * Parse a Node/V8 stack text (an uncaught error print, a V8 fatal error with
 * its native backtrace, an abort's JavaScript stack trace, a wasm trap) into
 * frames, in text order. Noise frames are included, marked by `ignored`.
 * Never throws.
 */
export function parseStack(text: string, opts: ParseOptions = {}): Frame[] {
  return scanStack(text, opts).frames;
}
