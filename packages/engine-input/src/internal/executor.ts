// Supervises one executor process: spawn it (own heap limit, no TS loader),
// keep the tail of its stderr, read its status file, kill it when the input
// it is running passes the timeout, and report how it ended. The engine's
// event loop only relays messages, so long jobs never block the worker.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sandboxedCommand, type TargetSandbox } from "@fuzzfarm/protocol";
import type { ChildMessage, InitMessage, OnceChildMessage, ParentMessage } from "./messages";

const HARNESS = fileURLToPath(new URL("./child/harness.cjs", import.meta.url));
/** Time an executor may take to load the target before the job fails. */
export const LOAD_TIMEOUT_MS = 60_000;
/** Bound of the stderr text kept for a finding's stack. */
export const MAX_TEXT = 16 * 1024;

export interface ExecutorStatus {
  /** Sequence number of the last input started (-1: none yet). */
  seq: number;
  /** When it started (ms since epoch). */
  startedAt: number;
  /** Whether it was still running. */
  running: boolean;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  status: ExecutorStatus;
  /** Set when the watchdog killed the process for a hang. */
  hang: boolean;
  /** Set when the engine killed it on purpose (stop, load timeout). */
  killedByUs: boolean;
}

export interface ExecutorOptions {
  init: Omit<InitMessage, "statusPath">;
  workDir: string;
  /** Name of the status file inside workDir. */
  name: string;
  maxMemoryMb: number;
  timeoutMs: number;
  /** The worker's sandbox: the process starts under its prefix, in its cwd. Default: none, cwd the target's directory. */
  sandbox?: TargetSandbox;
}

/** What an executor may say: ChildMessage in mode "fuzz", OnceChildMessage in mode "once". */
export type ExecutorMessage = ChildMessage | OnceChildMessage;

/** `M`: the messages of the executor's mode (ChildMessage in mode "fuzz", OnceChildMessage in mode "once"). */
export class Executor<M extends ExecutorMessage = ChildMessage> {
  private readonly child: ChildProcess;
  private readonly statusFd: number;
  private stderrTail = "";
  private watchdog: NodeJS.Timeout | null = null;
  private hang = false;
  private killedByUs = false;
  private readonly statusBuf = Buffer.alloc(24);
  onMessage: (m: M) => void = () => {};
  readonly exited: Promise<ExitInfo>;

  constructor(opts: ExecutorOptions) {
    const statusPath = join(opts.workDir, `${opts.name}.status`);
    const initial = Buffer.alloc(24);
    new Float64Array(initial.buffer, initial.byteOffset, 3).set([-1, 0, 0]);
    writeFileSync(statusPath, initial);
    this.statusFd = openSync(statusPath, "r");
    const cmd = sandboxedCommand(opts.sandbox, process.execPath, [`--max-old-space-size=${opts.maxMemoryMb}`, HARNESS]);
    this.child = spawn(cmd.command, cmd.args, {
      cwd: opts.sandbox?.cwd ?? dirname(opts.init.target),
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
    });
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (chunk: string) => {
      this.stderrTail += chunk;
      if (this.stderrTail.length > 2 * MAX_TEXT) this.stderrTail = this.stderrTail.slice(-MAX_TEXT);
    });
    // The harness sends only M (messages.ts types both ends).
    this.child.on("message", (m) => this.onMessage(m as M));
    this.child.on("error", () => {}); // surfaced through 'exit'/'close'
    this.exited = new Promise((resolve) => {
      this.child.on("close", (code, signal) => {
        this.stopWatchdog();
        const status = this.readStatus();
        closeSync(this.statusFd);
        resolve({ code, signal, stderr: this.stderrTail.slice(-MAX_TEXT), status, hang: this.hang, killedByUs: this.killedByUs });
      });
    });
    this.send({ ...opts.init, statusPath });
  }

  send(msg: InitMessage | ParentMessage): void {
    // "advanced" serialization carries the typed arrays (inputs, offsets) as they are.
    if (this.child.connected) this.child.send(msg, (err) => void err);
  }

  readStatus(): ExecutorStatus {
    readSync(this.statusFd, this.statusBuf, 0, 24, 0);
    const v = new Float64Array(this.statusBuf.buffer, this.statusBuf.byteOffset, 3);
    return { seq: v[0]!, startedAt: v[1]!, running: v[2] === 1 };
  }

  /** Kill the process when its current input has run for timeoutMs. */
  startWatchdog(timeoutMs: number): void {
    const every = Math.max(5, Math.min(250, Math.floor(timeoutMs / 4)));
    this.watchdog = setInterval(() => {
      const s = this.readStatus();
      if (s.running && Date.now() - s.startedAt >= timeoutMs) {
        this.hang = true;
        this.stopWatchdog();
        this.child.kill("SIGKILL");
      }
    }, every);
  }

  private stopWatchdog(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
  }

  /** Kill on purpose (end of job, abort, load timeout): not a finding. */
  kill(): void {
    this.killedByUs = true;
    this.child.kill("SIGKILL");
  }
}

/** Wait for the first message, or for the process to end; kill it after loadTimeoutMs. */
export function firstMessage<M extends ExecutorMessage>(ex: Executor<M>, loadTimeoutMs: number): Promise<M | ExitInfo> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => ex.kill(), loadTimeoutMs);
    ex.onMessage = (m) => {
      clearTimeout(timer);
      ex.onMessage = () => {};
      resolve(m);
    };
    void ex.exited.then((info) => {
      clearTimeout(timer);
      resolve(info);
    });
  });
}

export function isExit(x: ExecutorMessage | ExitInfo): x is ExitInfo {
  return !("t" in x);
}

/** One line saying why an executor ended before it was ready. */
export function loadFailure(info: ExitInfo): string {
  if (info.killedByUs) return `target did not load within ${LOAD_TIMEOUT_MS} ms`;
  const line = info.stderr.split("\n").find((l) => /error|exit/i.test(l)) ?? info.stderr.split("\n").find((l) => l.trim()) ?? "";
  const how = info.signal ? `signal ${info.signal}` : `exit code ${info.code}`;
  return `target ended while loading (${how})${line ? `: ${line.trim().slice(0, 300)}` : ""}`;
}
