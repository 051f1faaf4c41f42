// The worker's side of reported.ts: an engine's result turned into the JobResult
// it publishes. Findings keep only what a result may report, texts are cut to the
// result caps (the database keeps less of them anyway), and a result still over
// the total cap is refused here in one line instead of by the coordinator.
import { FuzzFarmError } from "./errors";
import { EngineResult, JobResult, type EngineResultInput } from "./result";
import { reportedReproducer, RESULT_LIMITS } from "./reported";
import type { EngineName, JobKind } from "./job";

export interface ResultIds {
  jobId: string;
  campaignId: string;
  workerId: string;
  engine: EngineName;
  kind: JobKind;
  startedAt: string;
  finishedAt: string;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 15)}... (truncated)` : s);
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/** Throws FF_ERR_ARTIFACT_TOO_LARGE (one line, naming the largest part) when `text` is over the result cap. */
export function checkResultBytes(bytes: number, jobId: string, parts?: Record<string, unknown>): void {
  if (bytes <= RESULT_LIMITS.resultBytes) return;
  const sizes = Object.entries(parts ?? {}).map(([k, v]) => [k, v === undefined ? 0 : JSON.stringify(v).length] as const).sort((a, b) => b[1] - a[1]);
  const largest = sizes[0] && sizes[0][1] > 0 ? ` (largest: ${sizes[0][0]}, ${mb(sizes[0][1])})` : "";
  throw new FuzzFarmError("FF_ERR_ARTIFACT_TOO_LARGE", `the result of job ${jobId} is ${mb(bytes)}, over the ${mb(RESULT_LIMITS.resultBytes)} a result may carry${largest}`);
}

/**
 * The JobResult a worker publishes for an engine's result. Throws FF_ERR_ARTIFACT_TOO_LARGE when it is over the
 * result caps, FF_ERR_BAD_JOB when it does not fit the result schema.
 */
export function publishableResult(out: EngineResultInput, ids: ResultIds): JobResult {
  const e = EngineResult.parse(out);
  const text = (s: string) => cut(s, RESULT_LIMITS.stackChars);
  const result = {
    ...e,
    ...ids,
    findings: e.findings.map((f) => ({ ...f, message: cut(f.message, RESULT_LIMITS.messageChars), stack: text(f.stack), reproducer: reportedReproducer(f.reproducer) })),
    ...(e.error ? { error: { kind: e.error.kind, message: text(e.error.message) } } : {}),
    ...(ids.kind === "minimize" && e.minimized ? { minimized: { ...e.minimized, explanation: text(e.minimized.explanation), reproducer: reportedReproducer(e.minimized.reproducer) } } : { minimized: undefined }),
  };
  if (ids.kind !== "minimize") delete (result as { minimized?: unknown }).minimized;
  if (result.coverage && JSON.stringify(result.coverage).length > RESULT_LIMITS.coverageBytes)
    throw new FuzzFarmError("FF_ERR_ARTIFACT_TOO_LARGE", `the coverage map of job ${ids.jobId} is ${mb(JSON.stringify(result.coverage).length)}, over the ${mb(RESULT_LIMITS.coverageBytes)} a result may carry`);
  checkResultBytes(JSON.stringify(result).length, ids.jobId, { coverage: result.coverage, corpus: result.corpus, features: result.features, findings: result.findings });
  const r = JobResult.safeParse(result);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new FuzzFarmError("FF_ERR_BAD_JOB", `malformed job result: ${i.path.join(".") || "(root)"}: ${i.message}`);
  }
  return r.data;
}
