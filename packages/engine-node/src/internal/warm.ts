// Warm execution: a pool of pre-started hosts (warm-host.cjs), each running
// one program at a time in a pre-booted worker thread. This amortizes
// process start-up (bench/node-execs.ts measures the ratio). Semantics
// differ from a plain process in what a worker cannot do (process.chdir,
// signals); TypeScript targets and replays use spawned processes.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sandboxedCommand, type TargetSandbox } from "@fuzzfarm/protocol";
import { WARM_WORKER_HOST } from "./paths";
import { stripOwnFrames, type RunResult, type RunSpec } from "./spawn";
import type { Trace } from "./trace";
import type { PreloadStart, WarmReply, WarmRequest } from "./preload-messages";

class Host {
  private proc: ChildProcess;
  private waiting = new Map<number, (r: WarmReply | null) => void>();
  constructor(sandbox: TargetSandbox | null) {
    // fork() without its execArgv, spelled as spawn so that the sandbox's prefix can come first
    const cmd = sandboxedCommand(sandbox, process.execPath, [WARM_WORKER_HOST]);
    this.proc = spawn(cmd.command, cmd.args, {
      env: { ...process.env, UV_THREADPOOL_SIZE: "1", NODE_OPTIONS: "" }, stdio: ["ignore", "ignore", "ignore", "ipc"], cwd: sandbox?.cwd,
    });
    this.proc.on("message", (m: WarmReply) => { this.waiting.get(m.id)?.(m); this.waiting.delete(m.id); });
    this.proc.on("exit", () => { for (const w of this.waiting.values()) w(null); this.waiting.clear(); this.dead = true; });
  }
  dead = false;
  send(msg: WarmRequest): Promise<WarmReply | null> {
    return new Promise((resolve) => { this.waiting.set(msg.id, resolve); this.proc.send(msg); });
  }
  close(): void { if (!this.dead) this.proc.kill(); }
}

/** Runs programs in warm workers; `size` runs at a time; the hosts start under `sandbox` (the worker's, per job). */
export class WarmPool {
  private hosts: Host[] = [];
  private free: Host[] = [];
  private queue: ((h: Host) => void)[] = [];
  private nextId = 1;
  // the hosts' programs write their traces here: a directory they can reach (the sandbox's job dir under "fs")
  private dir: string;
  constructor(readonly size: number, private readonly sandbox: TargetSandbox | null = null) {
    this.dir = mkdtempSync(join(sandbox?.dir ?? tmpdir(), "ff-warm-"));
    for (let i = 0; i < size; i++) { const h = new Host(sandbox); this.hosts.push(h); this.free.push(h); }
  }

  private acquire(): Promise<Host> {
    const h = this.free.pop();
    if (h) return Promise.resolve(h);
    return new Promise((resolve) => this.queue.push(resolve));
  }
  private release(h: Host): void {
    if (h.dead) { const i = this.hosts.indexOf(h); h = new Host(this.sandbox); this.hosts[i] = h; }
    const next = this.queue.shift();
    if (next) next(h); else this.free.push(h);
  }

  async run(spec: RunSpec): Promise<RunResult> {
    const host = await this.acquire();
    const id = this.nextId++;
    const traceOut = join(this.dir, `t${id}.json`);
    const cfg: PreloadStart = { strategy: spec.strategy, params: spec.params, seed: spec.seed, traceOut, timeoutMs: spec.timeoutMs, stallMs: spec.stallMs ?? 0, root: spec.cwd ?? process.cwd(), replay: spec.replay ?? null, coverage: !!spec.coverage };
    const t0 = performance.now();
    try {
      const script = resolve(spec.cwd ?? process.cwd(), spec.script);
      const reply = await host.send({ id, cfg, script, args: spec.args, timeoutMs: spec.timeoutMs });
      let trace: Trace | null = null;
      if (existsSync(traceOut)) { try { trace = JSON.parse(readFileSync(traceOut, "utf8")) as Trace; } catch { trace = null; } rmSync(traceOut, { force: true }); }
      if (!reply) return { exitCode: null, signal: "SIGKILL", stdout: "", stderr: "warm host died", trace, durationMs: performance.now() - t0, killed: false, childTraces: [] };
      let stderr = reply.stderr;
      if (reply.error && !trace?.uncaught) stderr += `\n${reply.error.stack}`;
      if (trace && !trace.uncaught && reply.error) trace.uncaught = { origin: "uncaughtException", message: reply.error.message, stack: stripOwnFrames(reply.error.stack) };
      return { exitCode: reply.killed ? null : reply.exitCode, signal: reply.killed ? "SIGKILL" : null, stdout: reply.stdout, stderr: stripOwnFrames(stderr), trace, durationMs: performance.now() - t0, killed: reply.killed, childTraces: [] };
    } finally {
      this.release(host);
    }
  }

  close(): void {
    for (const h of this.hosts) h.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Whether a target can run in a warm worker (plain JavaScript only). */
export const warmCapable = (script: string): boolean => /\.(c|m)?js$/.test(script);
