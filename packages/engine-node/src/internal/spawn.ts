// One execution of the program in a fresh `node` process with the preload:
// the engine's child-process protocol (config file in FUZZFARM_NODE, trace
// file written at exit, UV_THREADPOOL_SIZE=1 for record/replay).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Trace, ReplaySpec } from "./trace";
import { PRELOAD, PRELOAD_DIR, execArgvFor } from "./paths";

/** One run's request. */
export interface RunSpec {
  script: string;
  args: string[];
  strategy: string;
  params: Record<string, number>;
  seed: number;
  /** Wall-clock limit: the preload reports a hang at this point (exit 124). */
  timeoutMs: number;
  replay?: ReplaySpec | null;
  /** Collect block coverage of the program's files (written into the trace). */
  coverage?: boolean;
  cwd?: string;
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
}

const MAX_OUT = 1 << 20;

/** Remove the interceptor's own frames from a stack or stderr text. */
export function stripOwnFrames(text: string): string {
  if (!text.includes(PRELOAD_DIR)) return text;
  return text.split("\n").filter((l) => !l.includes(PRELOAD_DIR)).join("\n");
}

export function runSpawned(spec: RunSpec): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), "ff-node-"));
  const traceOut = join(dir, "trace.json");
  const cfgFile = join(dir, "cfg.json");
  writeFileSync(cfgFile, JSON.stringify({
    strategy: spec.strategy, params: spec.params, seed: spec.seed, traceOut, timeoutMs: spec.timeoutMs,
    root: spec.cwd ?? process.cwd(), replay: spec.replay ?? null, coverage: !!spec.coverage,
  }));
  const env: NodeJS.ProcessEnv = { ...process.env, FUZZFARM_NODE: cfgFile, UV_THREADPOOL_SIZE: "1" };
  delete env.NODE_OPTIONS;
  const t0 = performance.now();
  const child = spawn(process.execPath, [...execArgvFor(spec.script, spec.args), "-r", PRELOAD, spec.script, ...spec.args], {
    cwd: spec.cwd, env, stdio: spec.stdio === "inherit" ? ["inherit", "inherit", "pipe"] : ["ignore", "pipe", "pipe"],
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
  const hard = setTimeout(kill, spec.timeoutMs + 3000);
  spec.signal?.addEventListener("abort", kill, { once: true });
  return new Promise((resolve) => {
    child.on("close", (code, sig) => {
      clearTimeout(hard);
      spec.signal?.removeEventListener("abort", kill);
      if (pendingLine && spec.onStderr) spec.onStderr(stripOwnFrames(pendingLine));
      let trace: Trace | null = null;
      if (existsSync(traceOut)) { try { trace = JSON.parse(readFileSync(traceOut, "utf8")) as Trace; } catch { trace = null; } }
      rmSync(dir, { recursive: true, force: true });
      resolve({ exitCode: code, signal: sig, stdout, stderr: stripOwnFrames(stderr), trace, durationMs: performance.now() - t0, killed });
    });
    child.on("error", () => { /* reported through close */ });
  });
}
