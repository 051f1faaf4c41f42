// PARALLEL WORK: several engineers share this working tree. Before any git commit or npm install read
// /work/main/CONTRIBUTING.md (git: commit only your paths under flock; npm: install only under flock).
// The interface every engine package implements. Workers hold engines;
// engines never touch the database or the queue: a job in, a result out.
import type { AnyJobFor, EngineName, JobFor } from "./job";
import type { EngineResultInputFor, Minimized } from "./result";
import type { Outcome, ReproducerFor } from "./outcome";

/**
 * How an engine starts the processes that run target code (executors, spawned
 * or warm node programs, wasm runners): the worker's sandbox. The worker
 * builds it per job (packages/worker/src/sandbox.ts); engines only apply it.
 */
export interface TargetSandbox {
  /**
   * "fs": "net" plus own mount and PID namespace (read-only filesystem but this job's directory, private /tmp, the
   * worker's secrets covered, own /proc); "net": own user and network namespace with only loopback (Linux,
   * `unshare`); "none": the worker's own network and files.
   */
  name: "fs" | "net" | "none";
  /** Command words put before every target process's command line (the `unshare` wrapper); [] with "none". */
  prefix: readonly string[];
  /** Working directory of target processes: a directory of this job only. */
  cwd: string;
  /**
   * A directory of this job that target processes can read and write (with "fs", the worker's tmpdir is not
   * theirs): engines keep the files they share with a target process (its config, its trace) here. Default: tmpdir.
   */
  dir?: string;
}

/** The command line of a target process under `sandbox` (its prefix, then the command); unchanged without one. */
export function sandboxedCommand(sandbox: TargetSandbox | null | undefined, command: string, args: readonly string[]): { command: string; args: string[] } {
  const words = [...(sandbox?.prefix ?? []), command, ...args];
  return { command: words[0]!, args: words.slice(1) };
}

export interface EngineRunContext {
  /** Aborted when the worker shuts down or the job's lock is lost: stop soon, return what you have. */
  signal: AbortSignal;
  /** Scratch directory for this job (removed afterwards). */
  workDir: string;
  /** Periodic progress (for heartbeats and live stats). */
  onProgress?: (p: { execs: number; features: number }) => void;
  /** Sandbox of the target processes this job starts. Default: none (the worker's network, the engine's usual cwd). */
  sandbox?: TargetSandbox;
}

export interface Engine<E extends EngineName = EngineName> {
  readonly name: E;
  /** Start-up probe: one execution that must crash and one that must not. Throws FF_ERR_ENGINE_SELFTEST. */
  selfTest(): Promise<void>;
  /** Run a fuzz job for its budget. Findings and failures are data, not exceptions. */
  run(job: JobFor<E>, ctx: EngineRunContext): Promise<EngineResultInputFor<E>>;
  /** Run one reproducer once and say how it ended. */
  reproduce(target: { path: string }, repro: ReproducerFor<E>, ctx: EngineRunContext): Promise<Outcome>;
  /**
   * Shrink a reproducer while `stillFails(outcome)` holds (same bucket signature). Optional: the
   * worker falls back to byte-level delta debugging of `repro.input` through `reproduce`.
   */
  minimize?(target: { path: string }, repro: ReproducerFor<E>, stillFails: (o: Outcome) => boolean, ctx: EngineRunContext): Promise<Minimized>;
  /**
   * Refuse, before anything of it runs, a job this engine cannot run on this worker (for instance a wasm job
   * naming an engine configuration the worker's operator did not configure). Throws FF_ERR_BAD_JOB with a
   * one-line message. Optional: without it every valid payload is run.
   */
  checkJob?(job: AnyJobFor<E>): void;
  /**
   * What this engine offers on this worker beyond its name, advertised in heartbeats (the wasm engine: the
   * engine configuration ids a job may name). Optional.
   */
  capabilities?(): string[];
}
