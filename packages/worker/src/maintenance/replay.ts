// Replay jobs: run a bucket's reproducer N times (the reproduction rate).
// The worker only reports what happened; the coordinator decides which runs
// hit the same bucket (it owns triage against the stored buckets).
import type { Engine, EngineName, EngineResultInput, Finding, JobFor } from "@fuzzfarm/protocol";
import type { EngineRunContext } from "@fuzzfarm/protocol";

export async function runReplay(engine: Engine, job: JobFor<EngineName, "replay">, ctx: EngineRunContext): Promise<EngineResultInput> {
  const started = Date.now();
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
