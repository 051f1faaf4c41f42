// Run one input once in a fresh executor ("once" mode) and say how it ended.
// The harness runs fuzz(data), awaits it, lets the event loop settle (so a
// throw in a timer still counts) and writes the outcome to a file; a process
// that dies instead is classified like a crash during a job.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FuzzFarmError, InputOptions, type EngineRunContext, type Finding, type Outcome, type ReproducerFor } from "@fuzzfarm/protocol";
import { Executor, firstMessage, isExit, loadFailure, LOAD_TIMEOUT_MS } from "./executor";
import { classifyExit } from "./fatal";
import { resolveTarget } from "./target";
import type { OnceChildMessage, OnceOutcome } from "./messages";

/** Longest wait for timers and callbacks after fuzz() settled, ms. */
export const SETTLE_MS = 1000;

let onceCounter = 0;

export async function reproduceOnce(target: { path: string }, repro: ReproducerFor<"input">, ctx: EngineRunContext): Promise<Outcome> {
  const parsed = InputOptions.safeParse(repro.options ?? {});
  const opts = parsed.success ? parsed.data : InputOptions.parse({});
  const t = resolveTarget(target.path, opts.root);
  if ("error" in t) throw new FuzzFarmError("FF_ERR_TARGET_NOT_FOUND", t.error.message);
  const name = `once-${process.pid}-${onceCounter++}`;
  const cacheDir = join(ctx.workDir, "instrument-cache");
  mkdirSync(cacheDir, { recursive: true });
  const resultPath = join(ctx.workDir, `${name}.result.json`);
  const input = new Uint8Array(Buffer.from(repro.input ?? "", "base64"));
  const ex = new Executor<OnceChildMessage>({
    init: { mode: "once", target: t.path, root: t.root, cacheDir, instrument: true, input, settleMs: Math.min(SETTLE_MS, opts.timeoutMs), resultPath },
    workDir: ctx.workDir,
    name,
    maxMemoryMb: opts.maxMemoryMb,
    timeoutMs: opts.timeoutMs,
    sandbox: ctx.sandbox,
  });
  const onAbort = () => ex.kill();
  ctx.signal.addEventListener("abort", onAbort);
  try {
    const first = await firstMessage(ex, LOAD_TIMEOUT_MS);
    if (isExit(first)) throw new FuzzFarmError("FF_ERR_TARGET_INVALID", loadFailure(first));
    if (first.t === "error") throw new FuzzFarmError("FF_ERR_TARGET_INVALID", first.message);
    ex.startWatchdog(opts.timeoutMs);
    const info = await ex.exited;
    if (existsSync(resultPath)) {
      // Written by child/harness.cjs onceMode.
      const r = JSON.parse(readFileSync(resultPath, "utf8")) as OnceOutcome;
      if (r.kind === "ok") return { kind: "ok" };
      return { kind: "crash", crashKind: r.crashKind ?? "uncaught", message: r.message ?? "", stack: r.stack ?? "", reproducer: repro, detail: {} };
    }
    if (info.killedByUs) return { kind: "ok" }; // aborted by the caller: no verdict
    const v = classifyExit(info, opts.timeoutMs);
    const base = { message: v.message, stack: info.stderr, reproducer: repro };
    const finding: Finding =
      v.kind === "hang"
        ? { kind: "hang", timeoutMs: opts.timeoutMs, ...base, detail: {} }
        : { kind: "crash", crashKind: v.crashKind, ...base, detail: v.detail };
    return finding;
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
}
