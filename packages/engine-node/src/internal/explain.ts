// Words for a minimized schedule: which callback was delayed past which.
import type { TraceEvent } from "./trace";

const at = (e: TraceEvent): string => e.site.replace(/:\d+$/, "");

/** A callback in words, e.g. "fs.readFile callback (lib/cache.js:42)". */
export function describeEvent(e: TraceEvent): string {
  const api = e.api && !/^(Timeout|Immediate|anonymous)/.test(e.api) ? e.api : "";
  switch (e.kind) {
    case "timeout": return `the timer set at ${at(e)}`;
    case "immediate": return `the setImmediate callback from ${at(e)}`;
    case "fs": return `${api || "fs"} callback (${at(e)})`;
    case "fs.promise": return `${api || "fs.promises"} result (${at(e)})`;
    case "dns": return `${api || "dns.lookup"} callback (${at(e)})`;
    case "crypto": case "zlib": return `${api || e.kind} callback (${at(e)})`;
    case "read": return `data on the socket or pipe created at ${at(e)}`;
    case "accept": return `the connection accepted by the server listening at ${at(e)}`;
    case "connect": return `the connect of the socket created at ${at(e)}`;
    case "write": case "shutdown": return `the ${e.kind} completion of the socket created at ${at(e)}`;
    case "close": return `the close of the handle created at ${at(e)}`;
    case "exit": return `the child process 'exit' (${at(e)})`;
    case "worker.exit": return `the worker 'exit' (${at(e)})`;
    case "message": return `the message on the port created at ${at(e)}`;
    default: return `${e.kind} callback (${at(e)})`;
  }
}

/**
 * One sentence per held event: the events that arrived after it but were
 * delivered before it (the reorder the hold caused). Overtakers from user
 * code are named first.
 */
export function explainHolds(events: TraceEvent[], held: Set<string>): string[] {
  const lines: string[] = [];
  for (const x of events) {
    if (!held.has(x.id)) continue;
    const overtakers = events.filter((y) => y.seq < x.seq && y.arr > x.arr && y.id !== x.id);
    overtakers.sort((a, b) => Number(a.site === "internal") - Number(b.site === "internal") || a.seq - b.seq);
    if (overtakers.length === 0) { lines.push(`${describeEvent(x)} held until a later loop turn`); continue; }
    const named = overtakers.slice(0, 2).map(describeEvent);
    const more = overtakers.length - named.length;
    lines.push(`${describeEvent(x)} delayed past ${named.join(" and ")}${more > 0 ? ` (and ${more} other callback${more > 1 ? "s" : ""})` : ""}`);
  }
  return lines;
}
