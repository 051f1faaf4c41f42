// What crosses engine-node's process boundaries, typed once for both ends:
// the engine's TypeScript (spawn.ts, run-files.ts, warm.ts) and the plain
// JavaScript that runs inside the target's process (preload/*.cjs, which
// import these types through JSDoc).
//
//   engine ── cfg.json (PreloadStart, named by FUZZFARM_NODE) ──> preload/index.cjs ── trace.json (Trace) ──> engine
//          preload/children.cjs ── <cfg>.child-<n>.json (PreloadStart with `child`) ──> a child node process
//   WarmPool ── WarmRequest (IPC) ──> warm-host.cjs ── WarmRun (postMessage) ──> warm-boot.cjs (worker thread)
//            <── WarmReply (IPC) ──
import type { PreloadConfig } from "./run-files";
import type { Trace } from "./trace";

/** What the preload starts from (preload/index.cjs `start`): a run's cfg.json, a warm run's config, a child's config. */
export type PreloadStart = Omit<PreloadConfig, "record"> & {
  /** false: pass-through when nothing is perturbed, replayed or covered (mode.cjs). Warm runs leave it out: recorded. */
  record?: boolean;
  /** Where the trace goes at exit; null or absent: nowhere. */
  traceOut?: string | null;
  /** A child process's ordinal (1, 2... in spawn order; children.cjs); absent in the program's own process. */
  child?: number;
};

/** A child node process as the parent's trace lists it. */
export type ChildRecord = NonNullable<Trace["children"]>[number];

/** Engine (warm.ts) -> warm host (preload/warm-host.cjs): run `script` once in the spare worker. */
export interface WarmRequest {
  id: number;
  cfg: PreloadStart;
  script: string;
  args: string[];
  /** The host terminates the worker 3 s after this, whatever the preload's own limit did. */
  timeoutMs: number;
}

/** Warm host -> its pre-booted worker thread (preload/warm-boot.cjs). */
export type WarmRun = Pick<WarmRequest, "cfg" | "script" | "args">;

/** Warm host -> engine: how the run ended. */
export interface WarmReply {
  id: number;
  exitCode: number;
  stdout: string;
  stderr: string;
  /** An error the worker raised outside the program's own handlers. */
  error: { message: string; stack: string } | null;
  /** The host terminated the worker (it outlived timeoutMs + 3 s). */
  killed: boolean;
}

/** A worker thread's config under the fuzzer (preload/threads.cjs; FUZZFARM_THREAD in the thread's environment). */
export interface ThreadStart {
  /** The thread's ordinal among the Workers its creator started (1, 2... in creation order). */
  thread: number;
  /** Its own seed, derived from the run's seed and the ordinal. */
  seed: number;
  /** Probability that the thread stalls right after one of its posts to the parent. */
  stallProb: number;
  /** A stall lasts until the parent handled the message and started 2..1+stallSteps more callbacks... */
  stallSteps: number;
  /** ...and never longer than this, ms. */
  stallMs: number;
  /** At most this many stalls per thread. */
  stalls: number;
}
