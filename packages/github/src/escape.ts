// Text a target controls (crash titles, messages, file names taken from its
// stack, lines it printed) on its way into GitHub: Markdown for the step
// summary and the check run, plain text for annotations, SARIF message text
// for code scanning. A crash message is attacker-chosen: `[x](https://...)`,
// `![](...)`, `<img src=...>` or a backtick run would become live links,
// images (fetched by every reader's browser), HTML or a broken-out code span
// if pasted as is. Each format has one function here; reporters call only
// these. Control bytes become visible escapes (`\x1b`) in every format
// (@fuzzfarm/logging's visibleControls, the terminal's rule).
import { visibleControls } from "@fuzzfarm/logging";

const oneLine = (s: string) => s.replace(/\r\n|\r|\n/g, " ");
const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/**
 * `s` as an inline Markdown code span: one line, controls visible, at most `max` characters (default 300). The
 * fence is one backtick longer than the longest backtick run inside, padded with spaces when the text starts or
 * ends with a backtick or space, so nothing in `s` can close it: no link, image, HTML or emphasis is live inside.
 * With `cell`, `|` is written `\|` (inside a GFM table a bare `|` ends the cell even in a code span).
 */
export function markdownCode(s: string, opts: { cell?: boolean; max?: number } = {}): string {
  let text = cut(visibleControls(oneLine(s)), opts.max ?? 300);
  if (opts.cell) text = text.replace(/\|/g, "\\|");
  if (!text.trim()) return "`\u00a0`";
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * `s` as Markdown prose: one line, controls visible, every ASCII punctuation character backslash-escaped
 * (CommonMark makes each of them literal then), so no link, autolink, image, HTML tag, emphasis, heading or code
 * span starts from it; at most `max` characters (default 1000).
 */
export function markdownText(s: string, opts: { max?: number } = {}): string {
  return cut(visibleControls(oneLine(s)), opts.max ?? 1000).replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);
}

/** `s` as plain text (check-run annotation titles and messages, which GitHub shows unrendered): controls visible, newlines kept. */
export function plainText(s: string, max = 64 * 1024 - 1): string {
  return cut(visibleControls(s, true), max);
}

/**
 * `s` as SARIF message text (SARIF 2.1.0 §3.11: plain text whose `[text](id)` is an embedded link, `\[`, `\]`
 * and `\\` literal): backslashes and brackets escaped, controls visible, newlines kept.
 */
export function sarifText(s: string): string {
  return visibleControls(s.replace(/[\\[\]]/g, (c) => `\\${c}`), true);
}
