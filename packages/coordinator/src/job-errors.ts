// Job errors, handled by kind in one place. A worker that could not run a
// fuzz job reports a JobError whose kind says why (protocol job-errors.ts);
// the results consumer looks the kind up in this table and carries out what
// its handler decides. The defaults, by the kind's class:
//
//   target          target-not-found, target-invalid  end the campaign "failed", the error as its reason
//   job             bad-job                            end it "failed" once `rejectedToFail` finished jobs
//                                                      were all rejected (one worker's policy may differ)
//   infrastructure  engine-unavailable, internal       retry the job, up to `retries` times, then record it
//
// A kind has exactly one handler: registering a second one is refused, as
// fastify refuses a second decorator or parser of a name, so that no handler
// is silently replaced. Maintenance jobs (replay, minimize) do not come here:
// their errors are recorded on the bucket's replay / minimize record.
import { FuzzFarmError, JOB_ERROR_KINDS, jobErrorClass, type JobError, type JobErrorKind } from "@fuzzfarm/protocol";

export type JobErrorDecision =
  /** End the campaign as failed; `reason` is one line. */
  | { action: "fail-campaign"; reason: string }
  /** Run the same payload again under a new job id. */
  | { action: "retry" }
  /** Keep the error on the job row (and the log) only. */
  | { action: "record" };

export interface JobErrorContext {
  error: JobError;
  jobId: string;
  campaignId: string;
  workerId: string;
  /** Retries already made of this job's payload: 0 for a first run. */
  attempt: number;
  /** Fuzz jobs of the campaign that workers finished so far, with and without an error (this one included). */
  finished(): Promise<{ clean: number; failed: number }>;
}

export type JobErrorHandler = (ctx: JobErrorContext) => JobErrorDecision | Promise<JobErrorDecision>;

/** The table of job error handlers, one per kind. */
export class JobErrorHandlers {
  readonly #table = new Map<JobErrorKind, JobErrorHandler>();

  /** Register the handler of a kind; throws FF_ERR_CONFLICT if the kind already has one. */
  register(kind: JobErrorKind, handler: JobErrorHandler): this {
    if (!(kind in JOB_ERROR_KINDS)) throw new FuzzFarmError("FF_ERR_VALIDATION", `no job error kind "${kind}" (kinds: ${Object.keys(JOB_ERROR_KINDS).join(", ")})`);
    if (this.#table.has(kind)) throw new FuzzFarmError("FF_ERR_CONFLICT", `job error kind "${kind}" already has a handler`);
    this.#table.set(kind, handler);
    return this;
  }

  has(kind: JobErrorKind): boolean {
    return this.#table.has(kind);
  }

  /** What to do about a job's error; a kind without a handler is recorded. */
  async decide(ctx: JobErrorContext): Promise<JobErrorDecision> {
    const handler = this.#table.get(ctx.error.kind);
    return handler ? handler(ctx) : { action: "record" };
  }
}

export interface JobErrorPolicy {
  /** Retries of a job that failed for an infrastructure reason. Default 2. */
  retries: number;
  /** Finished jobs, all rejected as bad jobs, that end the campaign. Default 3. */
  rejectedToFail: number;
}

export const DEFAULT_JOB_ERROR_POLICY: JobErrorPolicy = { retries: 2, rejectedToFail: 3 };

const describe = (e: JobError) => `${e.kind}: ${e.message}`;

/** The handlers of the table in the header, one per kind of each class. */
export function defaultJobErrorHandlers(policy: Partial<JobErrorPolicy> = {}): JobErrorHandlers {
  const p = { ...DEFAULT_JOB_ERROR_POLICY, ...policy };
  const byClass = {
    target: (ctx: JobErrorContext): JobErrorDecision => ({ action: "fail-campaign", reason: `the target cannot be fuzzed: ${describe(ctx.error)}` }),
    job: async (ctx: JobErrorContext): Promise<JobErrorDecision> => {
      const { clean, failed } = await ctx.finished();
      return clean === 0 && failed >= p.rejectedToFail
        ? { action: "fail-campaign", reason: `all ${failed} finished jobs were rejected: ${describe(ctx.error)}` }
        : { action: "record" };
    },
    infrastructure: (ctx: JobErrorContext): JobErrorDecision => (ctx.attempt < p.retries ? { action: "retry" } : { action: "record" }),
  };
  const table = new JobErrorHandlers();
  for (const kind of Object.keys(JOB_ERROR_KINDS) as JobErrorKind[]) table.register(kind, byClass[jobErrorClass(kind)]);
  return table;
}
