// How an executor process that died (or was killed for a hang) is turned
// into a finding: the watchdog's verdict first, then V8's out-of-memory
// banner on stderr, then the signal, then the exit code. The stack is the
// raw stderr tail (bounded), which holds the target's last words and, for
// process.exit, the stack the harness printed.
import type { ExitInfo } from "./executor";

export type FatalVerdict =
  | { kind: "hang"; message: string }
  | { kind: "crash"; crashKind: "oom" | "signal" | "exit"; message: string; detail: Record<string, unknown> };

const OOM = /JavaScript heap out of memory|Reached heap limit|Allocation failed - process out of memory/;

export function classifyExit(info: ExitInfo, timeoutMs: number): FatalVerdict {
  if (info.hang) return { kind: "hang", message: `input still running after ${timeoutMs} ms` };
  if (OOM.test(info.stderr)) {
    return { kind: "crash", crashKind: "oom", message: "JavaScript heap out of memory", detail: { signal: info.signal, exitCode: info.code } };
  }
  if (info.signal) {
    return { kind: "crash", crashKind: "signal", message: `killed by signal ${info.signal}`, detail: { signal: info.signal } };
  }
  const called = /target called process\.exit\([^)]*\)/.exec(info.stderr);
  const message = called ? `${called[0]}: exit code ${info.code}` : `process exited with code ${info.code}`;
  return { kind: "crash", crashKind: "exit", message, detail: { exitCode: info.code } };
}
