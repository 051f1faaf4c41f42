// Supervises one child process (= one engine configuration: V8 flags) that
// owns a worker pool. Runs happen in the child so that an engine crash (death
// by a signal, a V8 fatal error, OOM) is observed here as a finding instead of
// taking the fuzzer down. The child is restarted lazily and given its module again.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { FuzzFarmError, sandboxedCommand, type TargetSandbox } from "@fuzzfarm/protocol";
import { lineChannel, type Launch } from "./launch";
import type { ModuleMeta, RunnerAnswer, RunnerCall, RunnerReply, RunnerRequest, RunResult, RunSpec } from "./messages";

export type { ModuleMeta, RunError, RunResult, RunSpec } from "./messages";
export interface CrashInfo {
  crashKind: "signal" | "oom";
  signal: string | null;
  exitCode: number | null;
  stderr: string;
}
export const CHILD = fileURLToPath(new URL("./child.mjs", import.meta.url));

/** The engine configurations the tier oracle compares (one child process each). */
export const TIER_FLAGS: Record<string, string[]> = {
  default: [],
  liftoff: ["--liftoff-only"],
  turbofan: ["--no-liftoff"],
};

/** How long a runner may take to print `ready` (Deno and Bun start in about 1 s). */
const READY_TIMEOUT_MS = 30_000;

export class Supervisor {
  private child: ChildProcess | null = null;
  private ready: Promise<void> | null = null;
  private stderr = "";
  private nextId = 1;
  private pending = new Map<number, { resolve: (m: RunnerAnswer) => void }>();
  private loaded: { wasm: Uint8Array; meta: ModuleMeta } | null = null;
  private childHasModule = false;
  private exitInfo: CrashInfo | null = null;
  /** Why the last child could not be started at all (a missing or non-executable command): a configuration error, not a crash. */
  private spawnError: string | null = null;

  private sendMsg: (m: RunnerRequest) => void = () => {};

  /**
   * `launch`: run the child under another engine or command (runner protocol over JSON lines, launch.ts); default: this Node with `flags`.
   * `sandbox`: the worker's sandbox (prefix and cwd of the child); default none.
   */
  constructor(readonly name: string, readonly flags: string[], readonly extraEnv: Record<string, string> = {}, readonly launch: Launch | null = null, readonly sandbox: TargetSandbox | null = null) {}

  private start(): Promise<void> {
    this.stderr = "";
    this.exitInfo = null;
    this.spawnError = null;
    const l = this.launch;
    const cmd = l ? sandboxedCommand(this.sandbox, l.command, l.args) : sandboxedCommand(this.sandbox, process.execPath, [...this.flags, CHILD]);
    const cwd = this.sandbox?.cwd;
    const child = l
      ? spawn(cmd.command, cmd.args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...this.extraEnv, ...l.env }, cwd })
      : spawn(cmd.command, cmd.args, {
          stdio: ["ignore", "ignore", "pipe", "ipc"],
          serialization: "advanced",
          env: { ...process.env, ...this.extraEnv },
          cwd,
        });
    this.child = child;
    this.sendMsg = l ? lineChannel(child, (m) => child.emit("message", m)) : (m) => child.send(m, (err) => err && child.kill("SIGKILL"));
    this.childHasModule = false;
    child.stderr!.on("data", (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-8000);
    });
    let onReady: () => void;
    const ready = new Promise<void>((r) => (onReady = r));
    // The child speaks the runner protocol (messages.ts); a JSON-lines runner's lines were checked to be objects with a type.
    child.on("message", (m: RunnerReply) => {
      if (m.type === "ready") onReady();
      if (m.type === "ready" || m.type === "log") return;
      const p = this.pending.get(m.id);
      if (p) {
        this.pending.delete(m.id);
        p.resolve(m);
      }
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      // Only a failed spawn (no pid) ends the child here; other errors (a failed kill) are followed by 'exit' or nothing.
      if (this.child !== child || child.pid !== undefined) return;
      this.spawnError = `cannot start ${cmd.command}: ${err.code ?? err.message}`;
      this.child = null;
      this.ready = null;
      for (const [, p] of this.pending) p.resolve({ type: "crashed" });
      this.pending.clear();
      onReady();
    });
    // Its last words may still be in the pipe when it exits (a runner dying at start-up): read them first, briefly.
    const stderrEnd = new Promise<void>((res) => child.stderr!.once("close", () => res()));
    child.on("exit", async (code, signal) => {
      await Promise.race([stderrEnd, new Promise((res) => setTimeout(res, 300))]);
      if (this.child !== child) return;
      const oom = /out of memory|OOM/i.test(this.stderr);
      const fatal = /Fatal error|FATAL ERROR|Check failed|# Fatal/i.test(this.stderr);
      this.exitInfo = { crashKind: oom ? "oom" : "signal", signal, exitCode: code, stderr: this.stderr };
      this.child = null;
      this.ready = null;
      const crashed = signal !== null || fatal || oom || (code !== 0 && code !== null);
      for (const [, p] of this.pending) p.resolve({ type: crashed ? "crashed" : "exited" });
      this.pending.clear();
      onReady();
    });
    return ready;
  }

  private async request(msg: RunnerCall, timeoutMs: number): Promise<RunnerAnswer> {
    if (!this.child) this.ready = this.start();
    // A command that never says ready (not a runner at all) must not hold the job forever.
    let timer: NodeJS.Timeout | undefined;
    const started = await Promise.race([this.ready!.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), Math.min(timeoutMs, READY_TIMEOUT_MS))))]);
    clearTimeout(timer);
    if (!started) {
      this.kill();
      return { type: "unresponsive" };
    }
    const child = this.child;
    if (!child && this.spawnError) throw new FuzzFarmError("FF_ERR_CONFIG", `engine ${this.name}: ${this.spawnError}`);
    if (!child) return { type: "crashed" };
    const id = this.nextId++;
    return new Promise<RunnerAnswer>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.kill();
        resolve({ type: "unresponsive" });
      }, timeoutMs);
      this.pending.set(id, { resolve: (m) => { clearTimeout(timer); resolve(m); } });
      this.sendMsg({ ...msg, id });
    });
  }

  /** Kill the child (used by tests and when it stops answering). */
  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    this.child?.kill(signal);
  }
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Make `wasm` the module of the following runs. Throws on a module the engine rejects. */
  async load(wasm: Uint8Array, meta: ModuleMeta): Promise<void> {
    this.loaded = { wasm, meta };
    this.childHasModule = false;
    await this.ensureLoaded();
  }

  private async ensureLoaded(): Promise<{ crash?: CrashInfo }> {
    if (this.childHasModule && this.child) return {};
    const l = this.loaded!;
    const r = await this.request({ type: "load", wasm: l.wasm, meta: l.meta }, 30_000);
    if (r.type === "failed") throw new Error(r.message);
    if (r.type !== "loaded") return { crash: this.crash() };
    this.childHasModule = true;
    return {};
  }

  private crash(): CrashInfo {
    return this.exitInfo ?? { crashKind: "signal", signal: null, exitCode: null, stderr: this.stderr };
  }

  /** Execute runs; a crash of the engine process comes back as `{crash}`. */
  async run(specs: RunSpec[], opts: { timeoutMs: number; wantLogs?: boolean }): Promise<{ results: RunResult[] } | { crash: CrashInfo } | { hang: string }> {
    const l = await this.ensureLoaded();
    if (l.crash) return { crash: l.crash };
    const budget = specs.length * (opts.timeoutMs + 3000) + 10_000;
    const r = await this.request({ type: "run", specs, timeoutMs: opts.timeoutMs, wantLogs: !!opts.wantLogs }, budget);
    if (r.type === "ran") return { results: r.results };
    if (r.type === "failed") throw new Error(r.message);
    if (r.type === "unresponsive") return { hang: `engine process did not answer within ${budget} ms` };
    return { crash: this.crash() };
  }

  async close(): Promise<void> {
    const c = this.child;
    if (!c) return;
    this.child = null;
    await new Promise<void>((resolve) => {
      c.once("exit", () => resolve());
      try {
        this.sendMsg({ type: "exit" });
      } catch {
        c.kill("SIGKILL");
      }
      setTimeout(() => c.kill("SIGKILL"), 2000).unref();
    });
  }
}
