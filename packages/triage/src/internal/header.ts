// What failed, read from the text around the frames: the JS error header
// (`TypeError [ERR_X]: message`), the throw site Node prints first, and the
// banners of fatal errors (`FATAL ERROR:`, `# Check failed:`, `# Assertion
// failed:`, `abort:`). Patterns come from the table.
import { re } from "./patterns";
import type { Scan } from "./parse-stack";

export interface StackHeader {
  /** Error class as printed (`TypeError`), or null. */
  errorName: string | null;
  /** Node error code printed in brackets (`ERR_INVALID_ARG_TYPE`), or null. */
  code: string | null;
  /** First line of the error message (without the class), or "" when none. */
  message: string;
  /** A fatal banner (`Check failed: x`, `Assertion failed: x`, `FATAL ERROR: ...`, `abort: ...`), or null. */
  fatal: { what: string; where: string | null; oom: boolean } | null;
  /** Where Node says it was thrown (first line of an uncaught-exception print), or null. */
  throwSite: { file: string; line: number } | null;
}

/** How far above the first frame the error header is looked for. */
const HEADER_LOOKBACK_LINES = 60;

function parseErrorLine(line: string, strict: boolean): { errorName: string | null; code: string | null; message: string } | null {
  const m = re("error-header").exec(line);
  if (!m) return null;
  const name = m[1]!;
  const hasColon = m[3] !== undefined;
  const isError = re("error-name-strict").test(name);
  if (strict && !isError) return null;
  if (!hasColon && !isError) return null;
  return { errorName: name, code: m[2] ?? null, message: (m[3] ?? "").trim() };
}

/** Parse `TypeError [CODE]: message` (or a bare message) from a one-line finding message. */
export function parseMessageLine(line: string): { errorName: string | null; code: string | null; message: string } {
  return parseErrorLine(line, false) ?? { errorName: null, code: null, message: line.trim() };
}

function findFatal(lines: string[]): StackHeader["fatal"] {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let m = re("fatal-error").exec(line);
    if (m) {
      const what = `FATAL ERROR: ${m[1]!.trim()}`;
      return { what, where: null, oom: re("oom-text").test(what) };
    }
    m = re("v8-fatal-in").exec(line);
    if (m) {
      for (let j = i + 1; j < Math.min(lines.length, i + 4); j++) {
        const w = re("v8-fatal-what").exec(lines[j]!);
        if (w) return { what: w[1]!.trim(), where: `${m[1]!.trim() || "?"}, line ${m[2]}`, oom: false };
      }
      return { what: "Fatal error", where: `${m[1]!.trim() || "?"}, line ${m[2]}`, oom: false };
    }
    m = re("node-assert-site").exec(line);
    if (m) {
      const next = lines[i + 1] ?? "";
      const a = re("node-assert").exec(next);
      return { what: a ? a[1]!.trim() : "Assertion failed", where: `${m[1]!.trim()} at ${m[2]}`, oom: false };
    }
    m = re("node-assert").exec(line);
    if (m) return { what: m[1]!.trim(), where: null, oom: false };
    m = re("v8-abort").exec(line);
    if (m) return { what: `abort: ${m[1]!.trim()}`, where: null, oom: false };
  }
  return null;
}

function findThrowSite(lines: string[]): { site: StackHeader["throwSite"]; after: number } {
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  const m = i < lines.length ? re("throw-site").exec(lines[i]!) : null;
  if (!m) return { site: null, after: -1 };
  return { site: { file: m[1]!, line: Number(m[2]) }, after: i + 1 };
}

/** The error header above the first `at` frame: the nearest certain error line, else the top of the block just above. */
function headerAboveFrames(lines: string[], firstAt: number): ReturnType<typeof parseErrorLine> {
  const stop = Math.max(0, firstAt - HEADER_LOOKBACK_LINES);
  for (let i = firstAt - 1; i >= stop; i--) {
    const h = parseErrorLine(lines[i]!, true);
    if (h) return h;
  }
  let top = firstAt - 1;
  while (top - 1 >= 0 && lines[top - 1]!.trim() !== "") top--;
  if (top < 0 || lines[top]!.trim() === "") return null;
  return parseMessageLine(lines[top]!);
}

/** After the throw site: skip the source line and the caret line, then the message. */
function messageAfterThrowSite(lines: string[], after: number): ReturnType<typeof parseErrorLine> {
  let i = after;
  let sawCaret = false;
  for (; i < Math.min(lines.length, after + 6); i++) {
    if (/^\s*\^+\s*$/.test(lines[i]!)) {
      sawCaret = true;
      i++;
      break;
    }
  }
  if (!sawCaret) return null;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  if (i >= lines.length) return null;
  return parseMessageLine(lines[i]!);
}

/** Node prints an error's own properties in `{ ... }` after its frames (the `{` ends the last frame line); take `code: 'ERR_X'`. */
function codeBelowFrames(lines: string[], firstAt: number): string | null {
  let i = firstAt;
  while (i < lines.length && /^\s*at /.test(lines[i]!)) i++;
  if (!/\{\s*$/.test(lines[i - 1] ?? "")) return null;
  for (let j = i; j < Math.min(lines.length, i + 8); j++) {
    const m = re("error-code-prop").exec(lines[j]!);
    if (m) return m[1]!;
    if (/^\s*\}\s*$/.test(lines[j]!)) break;
  }
  return null;
}

export function parseHeader(scan: Scan): StackHeader {
  const { lines, firstAtLine } = scan;
  const fatal = findFatal(lines);
  const { site, after } = findThrowSite(lines);
  let h: ReturnType<typeof parseErrorLine> = null;
  if (firstAtLine >= 0) h = headerAboveFrames(lines, firstAtLine);
  if (!h && after >= 0) h = messageAfterThrowSite(lines, after);
  let code = h?.code ?? null;
  if (h && code === null && firstAtLine >= 0) code = codeBelowFrames(lines, firstAtLine);
  return {
    errorName: h?.errorName ?? null,
    code,
    message: h?.message ?? "",
    fatal,
    throwSite: site,
  };
}
