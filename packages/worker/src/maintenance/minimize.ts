// Minimize jobs: shrink a reproducer while it still fails with the same crash
// state. Engines with their own reducer (schedules, program trees) provide
// `minimize`; otherwise the input bytes are reduced with ddmin through
// `reproduce`. "Same failure" = same triage signature as the reference run.
import { dirname } from "node:path";
import { crashState } from "@fuzzfarm/triage";
import type { Engine, EngineResultInput, JobPayload, Outcome, EngineRunContext } from "@fuzzfarm/protocol";
import { ddmin } from "./ddmin";

export async function runMinimize(engine: Engine, job: JobPayload, ctx: EngineRunContext): Promise<EngineResultInput> {
  const started = Date.now();
  const repro = job.reproducer;
  if (!repro) return { execs: 0, busyMs: 0, error: { kind: "bad-job", message: "minimize job without a reproducer" } };
  const target = { path: job.target.path };
  const rootDir = dirname(job.target.path);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), job.budget.seconds * 1000);
  const signal = AbortSignal.any([ctx.signal, deadline.signal]);
  const runCtx = { ...ctx, signal };
  try {
    const reference = await engine.reproduce(target, repro, runCtx);
    if (reference.kind === "ok")
      return { execs: 1, busyMs: Date.now() - started, error: { kind: "internal", message: "the reproducer did not fail before minimization (flaky or fixed)" } };
    const want = crashState(reference, { rootDir }).signature;
    const stillFails = (o: Outcome) => o.kind !== "ok" && crashState(o, { rootDir }).signature === want;
    if (engine.minimize) {
      const m = await engine.minimize(target, repro, stillFails, runCtx);
      return { execs: m.tries + 1, busyMs: Date.now() - started, minimized: m };
    }
    if (!repro.input) return { execs: 1, busyMs: Date.now() - started, error: { kind: "internal", message: `engine ${engine.name} has no reducer and the reproducer has no input bytes` } };
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
        explanation: `input reduced from ${bytes.length} to ${input.length} bytes by delta debugging (${tests} runs); still fails as ${want}`,
        originalSize: bytes.length,
        size: input.length,
        tries: tests,
      },
    };
  } finally {
    clearTimeout(timer);
  }
}
