// How one run ended, as the protocol's Outcome: ok, a crash (uncaught,
// rejection, non-zero exit, signal, out of memory) or a hang.
import type { FindingFor, OutcomeFor } from "@fuzzfarm/protocol";
import type { RunResult, RunSpec } from "./spawn";
import { fingerprint, toReplaySpec } from "./trace";

export const HANG_EXIT_CODE = 124;

/** The reproducer's options: what a replay needs besides the trace. */
export function reproOptions(spec: Pick<RunSpec, "strategy" | "params" | "timeoutMs" | "args">): Record<string, unknown> {
  return { strategy: spec.strategy, params: spec.params, timeoutMs: spec.timeoutMs, args: spec.args };
}

function firstLine(s: string): string {
  return s.split("\n").map((l) => l.trim()).find((l) => l.length > 0) ?? "";
}

/** The error line of a Node crash report on stderr ("Error: boom" below the source excerpt). */
function errorLine(stderr: string): string {
  const lines = stderr.split("\n");
  const i = lines.findIndex((l) => /^\s+at /.test(l));
  if (i > 0) return lines[i - 1]!.trim();
  return firstLine(stderr.replace(/^.*\n\s*\^+\s*\n/m, ""));
}

export function classify(r: RunResult, spec: RunSpec): OutcomeFor<"node"> {
  const trace = r.trace;
  const repro = {
    engine: "node" as const, seed: spec.seed, options: reproOptions(spec),
    trace: trace ? { ...toReplaySpec(trace), strategy: trace.strategy, fingerprint: fingerprint(trace) } : undefined,
  };
  const detail: Record<string, unknown> = { exitCode: r.exitCode, signal: r.signal, strategy: trace?.strategy.name ?? spec.strategy };
  if (trace?.hang || r.killed || r.exitCode === HANG_EXIT_CODE && trace?.hang) {
    const pending = trace?.hang?.pending ?? ["(the event loop was blocked: no report)"];
    return {
      kind: "hang", timeoutMs: spec.timeoutMs,
      message: trace?.hang?.stallMs ? `no progress for ${trace.hang.stallMs} ms` : `no exit within ${spec.timeoutMs} ms`,
      stack: r.stderr.slice(-8000), reproducer: repro, detail: { ...detail, pendingHandles: pending },
    } satisfies FindingFor<"node">;
  }
  if (r.exitCode === 0) return { kind: "ok" };
  const oom = /JavaScript heap out of memory|Allocation failed/.test(r.stderr);
  let crashKind: "uncaught" | "rejection" | "exit" | "signal" | "oom";
  let message: string;
  let stack: string;
  if (oom) { crashKind = "oom"; message = "JavaScript heap out of memory"; stack = r.stderr.slice(-8000); }
  else if (trace?.uncaught) {
    crashKind = trace.uncaught.origin === "unhandledRejection" ? "rejection" : "uncaught";
    message = trace.uncaught.message; stack = trace.uncaught.stack;
  } else if (r.signal) { crashKind = "signal"; message = `killed by ${r.signal}`; stack = r.stderr.slice(-8000); }
  else {
    crashKind = "exit";
    message = `exit code ${r.exitCode}` + (r.stderr.trim() ? `: ${errorLine(r.stderr)}` : "");
    stack = r.stderr.slice(-8000);
  }
  return { kind: "crash", crashKind, message: message.split("\n")[0]!.slice(0, 500), stack, reproducer: repro, detail } satisfies FindingFor<"node">;
}
