// A finding -> its crash state: kind, type, the top meaningful frames,
// the signature (dedup key), a one-line title and the normalized message.
//
// Signature rule: `kind[:type] | fn@file | fn@file | fn@file` over the top
// STATE_FRAME_COUNT meaningful frames (lines never in the key). Without any
// meaningful frame the normalized message stands in: `kind[:type] | msg:...`.
// Oracle findings with a program shape: `oracle:<name> | shape:<shape>`.
import { constants as osConstants } from "node:os";
import { findingKind, type Finding } from "@fuzzfarm/protocol";
import { frameKey, jsFrame } from "./frames";
import { hangFrames } from "./hang";
import { parseHeader, parseMessageLine, type StackHeader } from "./header";
import { normalizeMessage } from "./normalize";
import { scanStack, type Scan } from "./parse-stack";
import { patternsOf, re } from "./patterns";
import { MAX_NAME_CHARS, STATE_FRAME_COUNT } from "./thresholds";
import type { CrashState, CrashStateOptions, Frame } from "./types";

/** Characters of a program shape kept in an oracle signature. */
const MAX_SHAPE_CHARS = 300;
/** Characters of the message in a frameless signature. */
const SIGNATURE_MESSAGE_CHARS = 200;
/** Characters of a title. */
const MAX_TITLE_CHARS = 200;

const KIND_LABEL: Record<string, string> = {
  uncaught: "uncaught",
  rejection: "unhandled rejection",
  exit: "exit",
  signal: "signal",
  oom: "out of memory",
  hang: "hang",
  oracle: "oracle",
};

const meaningful = (fs: Frame[], langs: readonly Frame["lang"][]) => fs.filter((f) => f.ignored === null && langs.includes(f.lang));

function signalName(detail: Record<string, unknown>, text: string): string {
  for (const k of ["signal", "exitSignal", "termSignal", "signalName"]) {
    const v = detail[k];
    if (typeof v === "string" && /^SIG[A-Z0-9]+$/.test(v)) return v;
    if (typeof v === "number") {
      const name = Object.entries(osConstants.signals).find(([, n]) => n === v)?.[0];
      if (name) return name;
    }
  }
  const code = detail.exitCode ?? detail.code;
  if (typeof code === "number" && code > 128 && code < 160) {
    const name = Object.entries(osConstants.signals).find(([, n]) => n === code - 128)?.[0];
    if (name) return name;
  }
  for (const p of patternsOf("signal")) {
    const m = p.re.exec(text);
    if (m) return p.signal || m[1]!;
  }
  return "";
}

function exitType(detail: Record<string, unknown>, message: string): string {
  const code = detail.exitCode ?? detail.code;
  if (typeof code === "number" && Number.isInteger(code)) return `exit ${code}`;
  const m = /\bexit(?:ed)?(?: with)?(?: code)?:? ?\(?(-?\d+)\)?/i.exec(message);
  return m ? `exit ${m[1]}` : "";
}

/** The crash's frames: JS/wasm first; native frames first when a native check or assertion fired. */
function crashFrames(scan: Scan, header: StackHeader, rootDir: string): Frame[] {
  const js = meaningful(scan.frames, ["js", "wasm"]);
  const native = meaningful(scan.frames, ["native"]);
  let out = header.fatal && !header.fatal.oom ? [...native, ...js] : js.length ? js : native;
  if (out.length === 0 && header.throwSite) {
    const f = jsFrame("<unknown>", `${header.throwSite.file}:${header.throwSite.line}`, false, rootDir, true);
    if (f && f.ignored === null) out = [f];
  }
  return out;
}

function errorType(name: string | null, code: string | null, message: string): string {
  if (!name) return "";
  if (name === "RuntimeError" && re("wasm-trap").test(message)) return `RuntimeError: ${message}`;
  return code ? `${name} [${code}]` : name;
}

function cutTo(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

function titleOf(kind: string, type: string, frames: Frame[], shown: string, extra: string): string {
  const label = KIND_LABEL[kind] ?? kind;
  let head: string;
  if (kind === "signal" || kind === "exit") head = type || label;
  else if (kind === "oracle") head = `oracle ${type || "violation"}`;
  else if (kind === "hang") head = type === "busy" ? "hang (busy)" : type === "blocked threads" ? "hang with blocked threads" : "hang";
  else head = type ? `${label} ${type}` : label;
  if (extra) head += ` (${extra})`;
  const top = frames[0];
  if (top && top.lang === "handle") {
    const list = frames.map((f) => (f.file ? `${f.fn}(${f.file})` : f.fn)).join(", ");
    return cutTo(`${head}${type === "blocked threads" ? ": " : " on "}${list}`, MAX_TITLE_CHARS);
  }
  if (top) {
    const file = top.lang === "wasm" ? "wasm" : top.file;
    return cutTo(`${head} in ${file ? `${top.fn} (${file})` : top.fn}`, MAX_TITLE_CHARS);
  }
  return cutTo(shown ? `${head}: ${shown}` : head, MAX_TITLE_CHARS);
}

/** A finding's crash state (pure; never throws on any stack text). */
export function crashState(finding: Finding, opts: CrashStateOptions): CrashState {
  const rootDir = opts.rootDir;
  const kind = findingKind(finding);
  const detail = (finding.detail ?? {}) as Record<string, unknown>;
  const stack = typeof finding.stack === "string" ? finding.stack : "";
  const findingMessage = typeof finding.message === "string" ? finding.message : "";
  const scan = scanStack(stack, { rootDir });
  const header = parseHeader(scan);

  let type = "";
  let frames: Frame[] = [];
  let message = findingMessage;
  let shown = findingMessage; // the message as the title shows it (without the error class)
  let extra = "";
  let shape = "";

  if (finding.kind === "crash") {
    frames = crashFrames(scan, header, rootDir);
    const fromMsg = parseMessageLine(findingMessage.split(/\r?\n/)[0] ?? "");
    const name = header.errorName ?? fromMsg.errorName;
    const code = header.code ?? fromMsg.code;
    let text = header.errorName || header.message ? header.message : fromMsg.message;
    const reason = re("nonerror-rejection").exec(text);
    if (header.fatal && (!name || finding.crashKind === "oom" || finding.crashKind === "signal")) {
      message = header.fatal.what;
      shown = message.replace(/^FATAL ERROR: /, "");
    } else if (reason) {
      // Node wraps a non-Error rejection value in its own error: keep only the value
      text = `rejected with ${JSON.stringify(reason[1])}`;
      message = shown = text;
    } else if (name || text) {
      message = name ? `${name}${code ? ` [${code}]` : ""}: ${text}` : text;
      shown = text;
    }
    if (finding.crashKind === "signal") {
      type = signalName(detail, `${findingMessage}\n${stack.slice(0, 64 * 1024)}`);
      if (header.fatal && !header.fatal.oom) extra = cutTo(header.fatal.what, 80);
    } else if (finding.crashKind === "exit") {
      type = exitType(detail, findingMessage);
    } else if (finding.crashKind === "oom") {
      type = "";
    } else {
      type = reason ? "non-error" : errorType(name, code, text);
    }
  } else if (finding.kind === "hang") {
    const js = meaningful(scan.frames, ["js", "wasm"]);
    if (js.length) {
      type = "busy";
      frames = js;
    } else {
      const h = hangFrames(detail, scan.lines, rootDir);
      type = h.type;
      frames = h.frames;
    }
  } else {
    type = finding.oracle;
    if (typeof detail.shape === "string" && detail.shape.trim() !== "") {
      shape = detail.shape.replace(/\s+/g, " ").trim().slice(0, MAX_SHAPE_CHARS);
      extra = "";
    } else {
      frames = meaningful(scan.frames, ["js", "wasm"]);
    }
  }

  frames = frames.slice(0, STATE_FRAME_COUNT);
  const normalizedMessage = normalizeMessage(message, { rootDir });
  const head = type ? `${kind}:${type.slice(0, MAX_NAME_CHARS)}` : kind;
  const parts = [head];
  if (shape) parts.push(`shape:${shape}`);
  else if (frames.length) parts.push(...frames.map(frameKey));
  else if (normalizedMessage) parts.push(`msg:${normalizedMessage.slice(0, SIGNATURE_MESSAGE_CHARS)}`);
  const title = shape
    ? cutTo(`oracle ${type} violated by ${shape}`, MAX_TITLE_CHARS)
    : titleOf(kind, type, frames, normalizeMessage(shown, { rootDir }), extra);
  return { kind, type, frames, signature: parts.join(" | "), title, normalizedMessage };
}
