// One execution of the program in a fresh `node` process with the preload:
// the engine's child-process protocol (config file in FUZZFARM_NODE, trace
// file written at exit, UV_THREADPOOL_SIZE=1 for record/replay).
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { sandboxedCommand, type NodeJobStrategy, type TargetSandbox } from "@fuzzfarm/protocol";
import type { Trace, ReplaySpec } from "./trace";
import { PRELOAD, PRELOAD_DIR, execArgvFor } from "./paths";
import { readTrace, writeRunFiles } from "./run-files";

/** One run's request. */
export interface RunSpec {
  script: string;
  args: string[];
  strategy: NodeJobStrategy;
  params: Record<string, number>;
  seed: number;
  /** Wall-clock limit: the preload reports a hang at this point (exit 124). 0: none. */
  timeoutMs: number;
  /**
   * Progress limit: a hang is reported when no callback was delivered for
   * this long although the program still waits (on no timer of its own and
   * no child process). 0 or absent: off.
   */
  stallMs?: number;
  /**
   * Record the schedule (sites, every delivered event). false, with strategy
   * "none" and no replay or coverage: pure pass-through, the trace has no
   * events. Default true.
   */
  record?: boolean;
  replay?: ReplaySpec | null;
  /** Collect block coverage of the program's files (written into the trace). */
  coverage?: boolean;
  /** The program's root (sites are named relative to it) and, without a sandbox, its working directory. Default process.cwd(). */
  cwd?: string;
  /** The worker's sandbox: the process starts under its prefix, in its cwd (sites are still named relative to `cwd`). */
  sandbox?: TargetSandbox;
  /** Where the program's stdout/stderr go; "pipe" collects them (default). */
  stdio?: "inherit" | "pipe";
  /** Called with each stderr chunk after the interceptor's frames are stripped (stdio "inherit"). */
  onStderr?: (s: string) => void;
  signal?: AbortSignal;
}

export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  trace: Trace | null;
  durationMs: number;
  /** Killed by the launcher because even the preload's watchdog did not answer (blocked loop). */
  killed: boolean;
  /**
   * Traces of the child node processes the program started (each its own
   * run, own seed), depth-first; `suffix` names the child after the parent's
   * trace file (`.child-2.json`, a grandchild `.child-2.json.child-1.json`).
   */
  childTraces: { suffix: string; trace: Trace }[];
}

const MAX_OUT = 1 << 20;

/** Remove the interceptor's own frames from a stack or stderr text. */
export function stripOwnFrames(text: string): string {
  if (!text.includes(PRELOAD_DIR)) return text;
  return text.split("\n").filter((l) => !l.includes(PRELOAD_DIR)).join("\n");
}


export function runSpawned(spec: RunSpec): Promise<RunResult> {
  const { dir, cfgFile, traceOut } = writeRunFiles({
    strategy: spec.strategy, params: spec.params, seed: spec.seed, timeoutMs: spec.timeoutMs, stallMs: spec.stallMs ?? 0, record: spec.record ?? true,
    root: spec.cwd ?? process.cwd(), replay: spec.replay ?? null, coverage: !!spec.coverage,
  }, spec.sandbox?.dir);
  // one pool thread makes the order of pool effects replayable; a pass-through run keeps node's default
  const env: NodeJS.ProcessEnv = { ...process.env, FUZZFARM_NODE: cfgFile, ...(spec.record === false ? {} : { UV_THREADPOOL_SIZE: "1" }) };
  delete env.NODE_OPTIONS;
  const t0 = performance.now();
  const cmd = sandboxedCommand(spec.sandbox, process.execPath, [...execArgvFor(spec.script, spec.args), "-r", PRELOAD, spec.script, ...spec.args]);
  const child = spawn(cmd.command, cmd.args, {
    cwd: spec.sandbox?.cwd ?? spec.cwd, env, stdio: spec.stdio === "inherit" ? ["inherit", "inherit", "pipe"] : ["ignore", "pipe", "pipe"],
  });
  let stdout = "", stderr = "", pendingLine = "";
  child.stdout?.on("data", (d: Buffer) => { if (stdout.length < MAX_OUT) stdout += d.toString(); });
  child.stderr!.on("data", (d: Buffer) => {
    const s = d.toString();
    if (stderr.length < MAX_OUT) stderr += s;
    if (spec.onStderr) {
      const text = pendingLine + s;
      const cut = text.lastIndexOf("\n") + 1;
      pendingLine = text.slice(cut);
      if (cut) spec.onStderr(stripOwnFrames(text.slice(0, cut)));
    }
  });
  let killed = false;
  const kill = () => { killed = true; child.kill("SIGKILL"); };
  const hard = spec.timeoutMs > 0 ? setTimeout(kill, spec.timeoutMs + 3000) : undefined;
  spec.signal?.addEventListener("abort", kill, { once: true });
  return new Promise((resolve) => {
    child.on("close", (code, sig) => {
      clearTimeout(hard);
      spec.signal?.removeEventListener("abort", kill);
      if (pendingLine && spec.onStderr) spec.onStderr(stripOwnFrames(pendingLine));
      const trace = readTrace(traceOut);
      const childTraces: { suffix: string; trace: Trace }[] = [];
      const collect = (t: Trace | null) => {
        for (const c of t?.children ?? []) {
          const ct = c.traceOut ? readTrace(c.traceOut) : null;
          if (ct) { childTraces.push({ suffix: c.traceOut!.slice(traceOut.length), trace: ct }); collect(ct); }
        }
      };
      collect(trace);
      rmSync(dir, { recursive: true, force: true });
      resolve({ exitCode: code, signal: sig, stdout, stderr: stripOwnFrames(stderr), trace, durationMs: performance.now() - t0, killed, childTraces });
    });
    child.on("error", () => { /* reported through close */ });
  });
}
