// What a worker's operator allows its jobs to run, checked before any
// engine sees a job. A signed job comes from the coordinator, but the
// coordinator takes options from whoever can create campaigns; the worker's
// own configuration has the last word on which files it executes as targets
// and which optimizer commands and directories it runs.
//
// Optimizers: an optimizer a job (or a stored bucket) names runs only when the
// operator listed it (FUZZFARM_ALLOWED_OPTIMIZERS); unset means none. What an
// operator types on a command line is trusted: `fuzzfarm fuzz --optimizer(-cmd)`
// lists it for the workers it starts, `fuzzfarm wasm run --optimizer` runs no job.
import { isAbsolute } from "node:path";
import { FuzzFarmError, isUnderTargetRoots, optimizersOf, type JobPayload } from "@fuzzfarm/protocol";

export interface JobPolicy {
  /** Directories targets must live under (after resolving symlinks). Default: none, any target. */
  targetRoots?: string[];
  /**
   * Optimizer commands and directories (wasm `optimizerCmd` / `optimizer`) jobs may name, verbatim; [] allows none.
   * Default: none (a farm runs no optimizer its operator did not list).
   */
  allowedOptimizers?: string[];
}

/** Generator presets of the wasm engine: a name, not a file. */
const GENERATOR = /^[a-z0-9-]+$/;

/**
 * Throws `code` (FF_ERR_BAD_JOB for jobs) when an optimizer in `options` is not in `allowed` (undefined: none).
 * `where` names the list in the one-line message.
 */
export function checkOptimizers(
  options: { optimizer?: string | null; optimizerCmd?: string | null } | undefined,
  allowed: string[] | undefined,
  where: string,
  code: "FF_ERR_BAD_JOB" | "FF_ERR_FORBIDDEN" = "FF_ERR_BAD_JOB",
): void {
  const ok = new Set(allowed ?? []);
  for (const { field, value } of optimizersOf(options))
    if (!ok.has(value)) throw new FuzzFarmError(code, `${field} ${JSON.stringify(value)} is not in ${where} (FUZZFARM_ALLOWED_OPTIMIZERS${allowed?.length ? "" : ": none listed"})`);
}

/** Throws FF_ERR_BAD_JOB when the job asks for something this worker's operator did not allow. */
export function checkJobPolicy(job: JobPayload, policy: JobPolicy): void {
  const roots = policy.targetRoots ?? [];
  const path = job.target.path;
  const generator = job.engine === "wasm" && !isAbsolute(path) && GENERATOR.test(path);
  if (roots.length && !generator && !isUnderTargetRoots(path, roots))
    throw new FuzzFarmError("FF_ERR_BAD_JOB", `target ${path} is outside this worker's target roots (${roots.join(", ")})`);
  if (job.engine === "wasm") {
    // Fuzz jobs run the options' optimizer; replay and minimize jobs run their reproducer's.
    checkOptimizers(job.options, policy.allowedOptimizers, "this worker's allowed optimizers");
    if (job.kind !== "fuzz") checkOptimizers(job.reproducer.options, policy.allowedOptimizers, "this worker's allowed optimizers");
  }
}
