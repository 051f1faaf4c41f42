// Test helpers: run real jobs of the input engine against fixture targets,
// each in its own scratch directory.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EngineResult, InputReproducer, parseJob, type EngineRunContext, type Finding, type JobFor } from "@fuzzfarm/protocol";
import { inputEngine } from "../src/index";

export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
export const example = (name: string) => fileURLToPath(new URL(`../../../examples/input/${name}`, import.meta.url));

export function makeJob(path: string, options: Record<string, unknown> = {}, budget = { runs: 3000, seconds: 10 }, seeds: string[] = []): JobFor<"input"> {
  const job = parseJob({
    engine: "input",
    jobId: "job-test",
    campaignId: "camp-test",
    target: { name: "t", path },
    budget,
    options,
    seeds: seeds.map((data, i) => ({ id: `s${i}`, data })),
  });
  if (job.engine !== "input" || job.kind !== "fuzz") throw new Error("not an input fuzz job");
  return job;
}

export async function withCtx<T>(fn: (ctx: EngineRunContext) => Promise<T>, signal = new AbortController().signal): Promise<T> {
  const workDir = mkdtempSync(join(tmpdir(), "ff-input-test-"));
  try {
    return await fn({ signal, workDir });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Run a job and validate its result against the protocol schema (as the worker does). */
export async function runJob(job: JobFor<"input">, signal?: AbortSignal): Promise<EngineResult> {
  return EngineResult.parse(await withCtx((ctx) => inputEngine.run(job, ctx), signal));
}

/** A finding's reproducer as the input engine's (throws when it is another engine's). */
export const inputReproducer = (f: Finding) => InputReproducer.parse(f.reproducer);
