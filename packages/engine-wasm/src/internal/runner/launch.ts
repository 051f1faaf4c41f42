// Launching the runner child under an engine other than this Node: the child
// speaks the runner protocol as JSON lines on its stdin / stdout (README
// "Runner protocol"; transport.mjs is the child's side). A line that is not
// protocol JSON (an engine's own chatter on stdout) is ignored.
import type { ChildProcess } from "node:child_process";
import { decodeValue, encodeValue } from "./transport.mjs";

/** How to start one engine configuration's runner process. */
export interface Launch {
  /** Executable (absolute path or a name on PATH). */
  command: string;
  /** Its arguments, the runner script (or the command's own runner) included. */
  args: string[];
  /** Extra environment (JSC options for Bun, for instance). */
  env: Record<string, string>;
}

/** Wire a child's stdout lines to `onMessage`; returns the function that sends one message on its stdin. */
export function lineChannel(child: ChildProcess, onMessage: (m: Record<string, unknown>) => void): (m: Record<string, unknown>) => void {
  let buf = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line.startsWith("{")) continue;
      let m: unknown;
      try {
        m = JSON.parse(line, decodeValue);
      } catch {
        continue;
      }
      if (m && typeof m === "object" && typeof (m as { type?: unknown }).type === "string") onMessage(m as Record<string, unknown>);
    }
  });
  child.stdin!.on("error", () => {});
  return (m) => {
    if (child.stdin!.writable) child.stdin!.write(JSON.stringify(m, encodeValue) + "\n");
  };
}
