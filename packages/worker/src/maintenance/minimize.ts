// Minimize jobs: shrink a reproducer while it still fails as the same bug.
// Engines with their own reducer (schedules, program trees) provide
// `minimize`; otherwise the input bytes are reduced with ddmin through
// `reproduce`. "Same bug" is triage's one rule (matchesBucket) against the
// bucket the coordinator put in the job (`sameBug`: the bucket, the target's
// other buckets and the root it classified them with), the rule that filed
// the crash in the bucket in the first place.
import { isSameBug } from "@fuzzfarm/triage";
import type { Engine, EngineName, EngineResultInput, JobFor, Outcome, EngineRunContext, SameBugRule } from "@fuzzfarm/protocol";
import { ddmin } from "./ddmin";

/** The check a minimize job keeps: is this run the job's bucket's bug? */
export function minimizeCheck(rule: SameBugRule): (o: Outcome) => boolean {
  return (o) => isSameBug(o, rule.bucket, rule);
}

export async function runMinimize(engine: Engine, job: JobFor<EngineName, "minimize">, ctx: EngineRunContext): Promise<EngineResultInput> {
  const started = Date.now();
  const repro = job.reproducer;
  const target = { path: job.target.path };
  const want = job.sameBug.bucket;
  const stillFails = minimizeCheck(job.sameBug);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), job.budget.seconds * 1000);
  const signal = AbortSignal.any([ctx.signal, deadline.signal]);
  const runCtx = { ...ctx, signal };
  try {
    const reference = await engine.reproduce(target, repro, runCtx);
    if (reference.kind === "ok")
      return { execs: 1, busyMs: Date.now() - started, error: { kind: "internal", message: "the reproducer did not fail before minimization (flaky or fixed)" } };
    if (!stillFails(reference))
      return { execs: 1, busyMs: Date.now() - started, error: { kind: "internal", message: `the reproducer failed as another bug than bucket ${want.id} before minimization (flaky)` } };
    if (engine.minimize) {
      const m = await engine.minimize(target, repro, stillFails, runCtx);
      return { execs: m.tries + 1, busyMs: Date.now() - started, minimized: m };
    }
    if (repro.engine === "wasm" || !repro.input) return { execs: 1, busyMs: Date.now() - started, error: { kind: "internal", message: `engine ${engine.name} has no reducer and the reproducer has no input bytes` } };
    const bytes = [...Buffer.from(repro.input, "base64")];
    const { result, tests } = await ddmin(
      bytes,
      async (candidate) => stillFails(await engine.reproduce(target, { ...repro, input: Buffer.from(candidate).toString("base64") }, runCtx)),
      { maxTests: job.budget.runs, signal },
    );
    const input = Buffer.from(result);
    return {
      execs: tests + 1,
      busyMs: Date.now() - started,
      minimized: {
        reproducer: { ...repro, input: input.toString("base64") },
        explanation: `input reduced from ${bytes.length} to ${input.length} bytes by delta debugging (${tests} runs); still fails as ${want.signature}`,
        originalSize: bytes.length,
        size: input.length,
        tries: tests,
      },
    };
  } finally {
    clearTimeout(timer);
  }
}
