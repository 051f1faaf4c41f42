// Job error kinds: which stable error code each one stands for and whose
// fault it is. One mapping for the worker and every engine (a thrown
// FuzzFarmError becomes a JobError by its code, here and nowhere else), and
// the classes the coordinator's job error handlers dispatch on:
//
//   target          the target does not exist or does not load: every job of the campaign would fail alike
//   job             the job itself was refused (malformed payload, bad engine option, worker policy)
//   infrastructure  the worker or its engine failed: another try may succeed
import { isFuzzFarmError, oneLine, type ErrorCode } from "./errors";
import type { JobError } from "./result";

export type JobErrorKind = JobError["kind"];
export type JobErrorClass = "target" | "job" | "infrastructure";

/** Per job error kind: its error code and its class. */
export const JOB_ERROR_KINDS: Readonly<Record<JobErrorKind, { code: ErrorCode; class: JobErrorClass }>> = {
  "target-not-found": { code: "FF_ERR_TARGET_NOT_FOUND", class: "target" },
  "target-invalid": { code: "FF_ERR_TARGET_INVALID", class: "target" },
  "bad-job": { code: "FF_ERR_BAD_JOB", class: "job" },
  "engine-unavailable": { code: "FF_ERR_ENGINE_UNAVAILABLE", class: "infrastructure" },
  internal: { code: "FF_ERR_INTERNAL", class: "infrastructure" },
};

/** Codes that say the job (its payload or options) was refused, besides FF_ERR_BAD_JOB itself. */
const JOB_REFUSALS: ReadonlySet<ErrorCode> = new Set(["FF_ERR_CONFIG", "FF_ERR_VALIDATION", "FF_ERR_ARTIFACT_TOO_LARGE"]);

/** The kind of job error a thrown error is: by its code for FuzzFarm errors, "internal" for anything else. */
export function jobErrorKind(e: unknown): JobErrorKind {
  if (!isFuzzFarmError(e)) return "internal";
  if (e.code === "FF_ERR_ENGINE_SELFTEST") return "engine-unavailable";
  if (JOB_REFUSALS.has(e.code)) return "bad-job";
  const kind = (Object.keys(JOB_ERROR_KINDS) as JobErrorKind[]).find((k) => JOB_ERROR_KINDS[k].code === e.code);
  return kind ?? "internal";
}

/**
 * The JobError a worker or engine reports for a thrown error. The message is
 * one line; an error of another kind than its code says (or no FuzzFarm error
 * at all) keeps its code in the message, so nothing is lost in the mapping.
 */
export function jobErrorOf(e: unknown): JobError {
  const kind = jobErrorKind(e);
  const message = isFuzzFarmError(e) && e.code === JOB_ERROR_KINDS[kind].code ? e.message.split("\n")[0]! : oneLine(e);
  return { kind, message };
}

/** The class of a job error kind (see the table above). */
export const jobErrorClass = (kind: JobErrorKind): JobErrorClass => JOB_ERROR_KINDS[kind].class;
