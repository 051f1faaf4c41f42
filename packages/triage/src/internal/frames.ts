// Building one Frame from the pieces a frame pattern captured: the location
// is decoded (eval origin, wasm function, file:line:col), the path made
// relative, and the ignore entries of the table decide whether it is noise.
import { patternsOf, re } from "./patterns";
import { decodeLocation, relativePath } from "./paths";
import { MAX_NAME_CHARS } from "./thresholds";
import type { Frame, FrameLang, FrameLike } from "./types";

const cut = (s: string): string => (s.length > MAX_NAME_CHARS ? s.slice(0, MAX_NAME_CHARS) : s);

function toInt(s: string | undefined, radix = 10): number | null {
  if (s === undefined) return null;
  const n = parseInt(s, radix);
  return Number.isFinite(n) ? n : null;
}

/** The first ignore entry of the table matching this frame, or null. */
function ignoredBy(lang: FrameLang, fn: string, rawPath: string, relPath: string): string | null {
  for (const p of patternsOf("ignore")) {
    if (p.lang !== lang) continue;
    if (p.field === "fn" ? p.re.test(fn) : p.re.test(rawPath) || p.re.test("/" + relPath)) return p.id;
  }
  return null;
}

function jsName(raw: string | undefined): string {
  let fn = (raw ?? "").trim();
  const alias = fn.indexOf(" [as ");
  if (alias > 0 && fn.endsWith("]")) fn = fn.slice(0, alias);
  if (fn === "" || fn === "/* anonymous */") fn = "<anonymous>";
  return cut(fn);
}

function where(file: string, line: number | null, col: number | null): string {
  return file + (line !== null ? `:${line}` : "") + (col !== null ? `:${col}` : "");
}

/**
 * A JavaScript or wasm frame. `loc` is the text inside the parentheses (or the
 * whole anonymous location). Returns null when `requireLine` is set and the
 * location has no line number (so stray text is not taken for a frame).
 */
export function jsFrame(fnRaw: string | undefined, loc: string, isAsync: boolean, rootDir: string | undefined, requireLine: boolean): Frame | null {
  loc = loc.trim();
  const wasm = re("loc-wasm").exec(loc);
  if (wasm) {
    const index = toInt(wasm[2]);
    const named = fnRaw !== undefined && fnRaw.trim() !== "";
    const fn = named ? cut(jsName(fnRaw).replace(/^\$/, "")) : `wasm-function[${index}]`;
    const file = "wasm://wasm";
    const at = `wasm-function[${index}]:${wasm[3]}`;
    const display = named ? `${isAsync ? "async " : ""}${fnRaw!.trim()} (${at})` : at;
    return { fn, file, line: index, col: toInt(wasm[3]!.slice(2), 16), display, lang: "wasm", async: isAsync, ignored: null };
  }
  let raw: string;
  let line: number | null = null;
  let col: number | null = null;
  let evalNote = "";
  if (loc.startsWith("eval at ")) {
    const m = re("loc-eval").exec(loc);
    if (!m) return null;
    raw = decodeLocation(m[1]!);
    line = toInt(m[2]);
    col = toInt(m[3]);
    evalNote = "eval at ";
  } else {
    const lc = re("loc-line-col").exec(loc) ?? re("loc-line").exec(loc);
    if (lc) {
      raw = decodeLocation(lc[1]!);
      line = toInt(lc[2]);
      col = toInt(lc[3]);
    } else {
      if (requireLine) return null;
      raw = loc;
    }
  }
  const fn = jsName(fnRaw);
  const file = cut(relativePath(raw, rootDir));
  const shownFn = fnRaw === undefined || fnRaw.trim() === "" ? "" : `${isAsync ? "async " : ""}${fnRaw.trim()} `;
  const display = shownFn ? `${shownFn}(${evalNote}${where(file, line, col)})` : `${evalNote}${where(file, line, col)}`;
  return { fn, file, line, col, display, lang: "js", async: isAsync, ignored: ignoredBy("js", fn, raw, file) };
}

/** A C++ symbol without its argument list: `v8::internal::(anonymous namespace)::Invoke(...)` -> `v8::internal::{anon}::Invoke`. */
export function nativeName(symbol: string): string {
  let s = symbol.trim().replace(/\(anonymous namespace\)/g, "{anon}");
  const paren = s.indexOf("(");
  if (paren > 0) s = s.slice(0, paren);
  return cut(s.trim());
}

/** A native backtrace frame: symbol and module (`[/usr/bin/node]` becomes `node`). */
export function nativeFrame(symbol: string, module: string | undefined): Frame {
  const fn = nativeName(symbol);
  // the binary's install path differs between machines: keep its base name (node, libc.so.6)
  const file = cut((module ?? "").replace(/\\/g, "/").split("/").pop() ?? "");
  const display = `${fn || "<unknown>"}${file ? ` [${file}]` : ""}`;
  return { fn, file, line: null, col: null, display, lang: "native", async: false, ignored: ignoredBy("native", fn, module ?? "", file) };
}

/** A pending handle or blocked thread of a hang, shown as `Timeout(fs-cache.js:12)`. */
export function handleFrame(type: string, location: string | undefined, rootDir: string | undefined): Frame {
  const fn = cut(type.trim() || "handle");
  let file = "";
  let line: number | null = null;
  let col: number | null = null;
  if (location !== undefined && location.trim() !== "") {
    const loc = location.trim();
    const lc = re("loc-line-col").exec(loc) ?? re("loc-line").exec(loc);
    const raw = decodeLocation(lc ? lc[1]! : loc);
    file = cut(relativePath(raw, rootDir));
    line = lc ? toInt(lc[2]) : null;
    col = lc ? toInt(lc[3]) : null;
  }
  const display = file ? `${fn}(${where(file, line, col)})` : fn;
  return { fn, file, line, col, display, lang: "handle", async: false, ignored: null };
}

/** The identity of a frame in signatures and comparisons: `fn@file`, never line numbers. */
export function frameKey(f: FrameLike): string {
  return `${f.fn}@${f.file}`;
}
