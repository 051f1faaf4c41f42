// Message normalization: the same bug should print the same message whatever
// the run's pid, port, temp dir or addresses. Driven by the table's
// "normalize" entries, applied in table order.
import { patternsOf } from "./patterns";
import { MAX_MESSAGE_CHARS } from "./thresholds";

export interface NormalizeOptions {
  /** Occurrences of this directory (and its file:// URL) are removed, leaving relative paths. Default: none. */
  rootDir?: string;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Mask the run-specific parts of a message (uuids, temp paths, timestamps, IPs,
 * ports, pids, hex addresses and ids, numbers), collapse white space, and cut
 * it to MAX_MESSAGE_CHARS characters.
 */
export function normalizeMessage(message: string, opts: NormalizeOptions = {}): string {
  let s = String(message).slice(0, MAX_MESSAGE_CHARS * 4);
  const root = (opts.rootDir ?? "").replace(/\\/g, "/").replace(/\/+$/, "");
  if (root.length > 1) {
    s = s.replace(new RegExp(`(?:file://)?${escapeRe(root)}/`, "g"), "");
  }
  for (const p of patternsOf("normalize")) s = s.replace(p.re, p.replacement);
  s = s.trim();
  return s.length > MAX_MESSAGE_CHARS ? s.slice(0, MAX_MESSAGE_CHARS) : s;
}
