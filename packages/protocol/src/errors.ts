// Stable error codes. Every thrown FuzzFarm error carries one; the web layer
// maps them to HTTP statuses in one place and docs/errors.md lists them all
// (a test keeps the three in step).

export const ERROR_CODES = {
  FF_ERR_CONFIG: { status: 400, summary: "invalid configuration value or flag" },
  FF_ERR_BAD_JOB: { status: 400, summary: "a job payload or result failed schema validation" },
  FF_ERR_TARGET_NOT_FOUND: { status: 404, summary: "the target script or module does not exist" },
  FF_ERR_TARGET_INVALID: { status: 400, summary: "the target exists but cannot be loaded (syntax error, missing export)" },
  FF_ERR_ARTIFACT_TOO_LARGE: { status: 413, summary: "an input, program or trace exceeds the size limit" },
  FF_ERR_ENGINE_UNAVAILABLE: { status: 400, summary: "no engine of that name on this worker" },
  FF_ERR_ENGINE_SELFTEST: { status: 500, summary: "an engine failed its start-up probe" },
  FF_ERR_REDIS_DOWN: { status: 503, summary: "Redis does not answer" },
  FF_ERR_DB_DOWN: { status: 503, summary: "PostgreSQL does not answer" },
  FF_ERR_SERVICE_START: { status: 500, summary: "a local service could not be started" },
  FF_ERR_NOT_FOUND: { status: 404, summary: "no such campaign, bucket or report" },
  FF_ERR_CONFLICT: { status: 409, summary: "the request conflicts with the current state (e.g. merging a bucket into itself)" },
  FF_ERR_UNAUTHORIZED: { status: 401, summary: "a write needs a valid token or session" },
  FF_ERR_FORBIDDEN: { status: 403, summary: "the token is valid but not for this action (or CSRF check failed)" },
  FF_ERR_VALIDATION: { status: 400, summary: "a request body or query failed validation" },
  FF_ERR_MISDIRECTED: { status: 421, summary: "the request's Host is not one this dashboard serves (DNS rebinding guard)" },
  FF_ERR_TOO_MANY: { status: 429, summary: "too many open connections of this kind (per client or in total)" },
  FF_ERR_CAMPAIGN_FAILED: { status: 422, summary: "a campaign could not fuzz: every job a worker finished failed (the reason names the commonest job error)" },
  FF_ERR_FARM_UNREACHABLE: { status: 502, summary: "the farm's API (fuzzfarm ci --farm URL) does not answer" },
  FF_ERR_INTERNAL: { status: 500, summary: "an unexpected internal error" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** An error with a stable code; `message` is one line meant for a human. */
export class FuzzFarmError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = "FuzzFarmError";
    this.code = code;
    this.details = details;
  }
  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

export function isFuzzFarmError(e: unknown): e is FuzzFarmError {
  return e instanceof FuzzFarmError;
}

/**
 * One line for a terminal: `FF_ERR_X: message` for our errors, the message otherwise. Never empty: Prisma's
 * errors start with a blank line and "Invalid `prisma.x()` invocation:", the cause ("Can't reach database
 * server at ...") comes last, so that is the line taken; an error without a message is named by its code or name.
 */
export function oneLine(e: unknown): string {
  if (isFuzzFarmError(e)) return `${e.code}: ${firstLine(e.message)}`;
  if (e instanceof Error) {
    const lines = e.message.split("\n").map((l) => l.trim()).filter(Boolean);
    const line = /^Invalid `.*` invocation/.test(lines[0] ?? "") && lines.length > 1 ? lines[lines.length - 1]! : lines[0];
    return line ?? ((e as { code?: unknown }).code ? String((e as { code?: unknown }).code) : e.name);
  }
  return firstLine(String(e)) || "unknown error";
}

function firstLine(s: string): string {
  return s.split("\n").map((l) => l.trim()).find(Boolean) ?? "";
}
