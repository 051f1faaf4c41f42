// Input fuzzing under the perturbed event loop: when the target exports
// `fuzz(data)`, each run feeds it an input mutated (havoc, from
// @fuzzfarm/corpus) from the job's seed inputs while the preload perturbs its
// async work. A run is then (input, strategy, seed), and so is its reproducer.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { havoc } from "@fuzzfarm/corpus";
import { createRng, type Rng } from "@fuzzfarm/rng";
import type { JobFor } from "@fuzzfarm/protocol";

const FUZZ_EXPORT = /export\s+(async\s+)?function\s+fuzz\b|export\s+(const|let)\s+fuzz\b|exports\.fuzz\s*=|module\.exports\s*=\s*\{[^}]*\bfuzz\b/;

/** Does the script export a `fuzz(data)` function (libFuzzer / Jazzer.js convention)? */
export function exportsFuzz(path: string): boolean {
  try {
    return FUZZ_EXPORT.test(readFileSync(path, "utf8"));
  } catch {
    return false;
  }
}

export class InputSource {
  private readonly rng: Rng;
  private readonly pool: Uint8Array[];

  /** Seed inputs: job seeds whose strategy carries `input` (base64), else one empty input. */
  constructor(job: JobFor<"node">) {
    this.rng = createRng(job.options.seedStart ^ 0x2545f491);
    this.pool = job.seeds
      .map((s) => (s.strategy as { input?: unknown }).input)
      .filter((x): x is string => typeof x === "string")
      .map((b) => new Uint8Array(Buffer.from(b, "base64")));
    if (!this.pool.length) this.pool.push(new Uint8Array(0));
  }

  /** The next input: a seed as is now and then, otherwise a havoc mutant of one. */
  next(): Uint8Array {
    const base = this.rng.pick(this.pool);
    return this.rng.bool(0.1) ? base : havoc(base, this.rng, { maxLen: 4096, corpus: this.pool }).data;
  }

  /** Keep an input that brought new features as a parent for later mutants. */
  add(input: Uint8Array): void {
    if (this.pool.length < 1000) this.pool.push(input);
  }
}

export function writeInput(dir: string, name: string, bytes: Uint8Array): string {
  const file = join(dir, `input-${name}.bin`);
  writeFileSync(file, bytes);
  return file;
}
