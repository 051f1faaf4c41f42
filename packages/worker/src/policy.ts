// What a worker's operator allows its jobs to run, checked before any
// engine sees a job. A signed job comes from the coordinator, but the
// coordinator takes options from whoever can create campaigns; the worker's
// own configuration has the last word on which files it executes as targets
// and which optimizer commands and directories it runs.
import { isAbsolute } from "node:path";
import { FuzzFarmError, isUnderTargetRoots, type JobPayload } from "@fuzzfarm/protocol";

export interface JobPolicy {
  /** Directories targets must live under (after resolving symlinks). Default: none, any target. */
  targetRoots?: string[];
  /** Optimizer commands and directories (wasm `optimizerCmd` / `optimizer`) jobs may name, verbatim; [] allows none. Default: unrestricted (a developer's own machine). */
  allowedOptimizers?: string[];
}

/** Generator presets of the wasm engine: a name, not a file. */
const GENERATOR = /^[a-z0-9-]+$/;

/** Throws FF_ERR_BAD_JOB when the job asks for something this worker's operator did not allow. */
export function checkJobPolicy(job: JobPayload, policy: JobPolicy): void {
  const roots = policy.targetRoots ?? [];
  const path = job.target.path;
  const generator = job.engine === "wasm" && !isAbsolute(path) && GENERATOR.test(path);
  if (roots.length && !generator && !isUnderTargetRoots(path, roots))
    throw new FuzzFarmError("FF_ERR_BAD_JOB", `target ${path} is outside this worker's target roots (${roots.join(", ")})`);
  if (job.engine === "wasm" && policy.allowedOptimizers) {
    const allowed = new Set(policy.allowedOptimizers);
    const o = job.options as { optimizer?: string | null; optimizerCmd?: string | null };
    for (const [field, value] of [["optimizer", o.optimizer], ["optimizerCmd", o.optimizerCmd]] as const)
      if (value && !allowed.has(value)) throw new FuzzFarmError("FF_ERR_BAD_JOB", `${field} ${JSON.stringify(value)} is not in this worker's allowed optimizers (FUZZFARM_ALLOWED_OPTIMIZERS)`);
  }
}
