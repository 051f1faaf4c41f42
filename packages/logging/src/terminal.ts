// Text a target controls (crash messages, stacks, titles, file names), made
// safe for a terminal. A target's message can carry ESC sequences (CSI
// cursor moves, OSC 8 hyperlinks, OSC 52 clipboard writes, title changes),
// bare C1 controls (0x9b is a one-byte CSI on some terminals), carriage
// returns that overprint a line, and Unicode bidi overrides that reorder
// what is read (Trojan Source). Each is shown as a visible escape instead
// (`\x1b`, `\x9b`, `\u202e`), so the reader sees the bytes and the terminal
// executes none of them. The same rule makes text one line for Markdown and
// SARIF (packages/github's escape.ts builds on it).

/** C0 and C1 controls, DEL, and the Unicode format characters that reorder or hide text. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
const CONTROLS_BUT_NEWLINE_TAB = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

const visible = (c: string) => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
};

/**
 * Every control and invisible format character of `s` as a visible escape (`\x1b`, `\u202e`).
 * With `keepLines` (default false) newlines and tabs stay as they are.
 */
export function visibleControls(s: string, keepLines = false): string {
  return s.replace(keepLines ? CONTROLS_BUT_NEWLINE_TAB : CONTROLS, visible);
}

/**
 * Target-controlled text for a terminal: escapes shown, never executed. Newlines and tabs stay (stacks are
 * printed line by line); a carriage return is shown as `\x0d` (it would overprint the line).
 */
export function terminalText(s: string): string {
  return visibleControls(s, true);
}
