// Replay jobs: run a bucket's reproducer N times (the reproduction rate).
// The worker only reports what happened; the coordinator decides which runs
// hit the same bucket (it owns triage against the stored buckets).
import type { Engine, EngineResultInput, Finding, JobPayload } from "@fuzzfarm/protocol";
import type { EngineRunContext } from "@fuzzfarm/protocol";

export async function runReplay(engine: Engine, job: JobPayload, ctx: EngineRunContext): Promise<EngineResultInput> {
  const started = Date.now();
  if (!job.reproducer) return { execs: 0, busyMs: 0, error: { kind: "bad-job", message: "replay job without a reproducer" } };
  const findings: Finding[] = [];
  let runs = 0;
  while (runs < job.budget.runs && Date.now() - started < job.budget.seconds * 1000 && !ctx.signal.aborted) {
    const o = await engine.reproduce({ path: job.target.path }, job.reproducer, ctx);
    if (o.kind !== "ok") findings.push({ ...o, detail: { ...o.detail, replayRun: runs } });
    runs++;
    ctx.onProgress?.({ execs: runs, features: 0 });
  }
  return { execs: runs, busyMs: Date.now() - started, findings };
}
