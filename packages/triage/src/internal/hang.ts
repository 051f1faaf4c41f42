// What a hang is stuck on, as frames. A hang has no crash stack; its
// identity is what keeps the process alive: the pending handles and timers
// of an event loop (`Timeout(fs-cache.js:12)`, `TCPWRAP`), or the blocked
// threads of a wasm-threads run. The engine lists them in `detail`; a
// listing in the stack text is read too. Order of a listing means nothing,
// so entries are deduplicated and sorted (entries with a location first).
import { frameKey, handleFrame } from "./frames";
import { normalizeMessage } from "./normalize";
import { re } from "./patterns";
import { MAX_FRAMES } from "./thresholds";
import type { Frame } from "./types";

/** detail keys read as pending handles / timers, in this order. */
export const HANG_HANDLE_KEYS = ["handles", "pendingHandles", "activeHandles", "timers", "resources", "activeResources"] as const;
/** detail keys read as blocked threads. */
export const HANG_THREAD_KEYS = ["threads", "blockedThreads"] as const;

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

function entryFrame(entry: unknown, rootDir: string): Frame | null {
  if (typeof entry === "string") {
    const text = entry.trim().replace(/^[-*]\s+/, "");
    if (!text) return null;
    const m = re("handle-entry").exec(text);
    if (m) return handleFrame(m[1]!, m[2], rootDir);
    return handleFrame(normalizeMessage(text, { rootDir }), undefined, rootDir);
  }
  if (entry && typeof entry === "object" && !Array.isArray(entry)) {
    const o = entry as Record<string, unknown>;
    const type = str(o.type) ?? str(o.name) ?? str(o.kind) ?? str(o.resource) ?? str(o.state) ?? "handle";
    let loc = str(o.location) ?? str(o.at) ?? str(o.where) ?? str(o.site) ?? str(o.file);
    if (loc !== undefined && typeof o.line === "number" && !/:\d+$/.test(loc)) loc = `${loc}:${o.line}`;
    return handleFrame(normalizeMessage(type), loc, rootDir);
  }
  return null;
}

function entriesOf(v: unknown): unknown[] {
  if (Array.isArray(v)) return v.slice(0, MAX_FRAMES);
  if (typeof v === "string") return v.split(/\r?\n|,\s+(?![^()]*\))/).slice(0, MAX_FRAMES);
  return [];
}

function listingInText(lines: string[]): string[] {
  for (let i = 0; i < lines.length; i++) {
    if (!re("handle-listing-title").test(lines[i]!)) continue;
    const out: string[] = [];
    for (let j = i + 1; j < lines.length && out.length < MAX_FRAMES; j++) {
      const t = lines[j]!.trim().replace(/^[-*]\s+/, "");
      if (!t || !re("handle-entry").test(t)) break;
      out.push(t);
    }
    if (out.length) return out;
  }
  return [];
}

function sorted(frames: Frame[]): Frame[] {
  const seen = new Map<string, Frame>();
  for (const f of frames) if (!seen.has(frameKey(f))) seen.set(frameKey(f), f);
  return [...seen.values()].sort((a, b) => {
    if (!!a.file !== !!b.file) return a.file ? -1 : 1;
    const ka = frameKey(a);
    const kb = frameKey(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

/** The handles or threads a hang waits on, as sorted, deduplicated frames; type says which. */
export function hangFrames(detail: Record<string, unknown>, lines: string[], rootDir: string): { type: string; frames: Frame[] } {
  for (const k of HANG_THREAD_KEYS) {
    const fs = entriesOf(detail[k]).map((e) => entryFrame(e, rootDir)).filter((f): f is Frame => f !== null);
    if (fs.length) return { type: "blocked threads", frames: sorted(fs) };
  }
  for (const k of HANG_HANDLE_KEYS) {
    const fs = entriesOf(detail[k]).map((e) => entryFrame(e, rootDir)).filter((f): f is Frame => f !== null);
    if (fs.length) return { type: "pending handles", frames: sorted(fs) };
  }
  const listed = listingInText(lines).map((e) => entryFrame(e, rootDir)).filter((f): f is Frame => f !== null);
  if (listed.length) return { type: "pending handles", frames: sorted(listed) };
  return { type: "", frames: [] };
}
