// The acceptance check: the 8-byte example is found by coverage guidance
// (dictionary off, so the literals do not give it away) within the job's
// 60 s budget, and the same mutations WITHOUT coverage feedback do not get
// there. That baseline is the engine's own havoc chain (same seed, depth and
// length limit) applied again and again to the starting input, the corpus
// never growing: it reaches the first bytes by luck (about 1/256 per byte),
// so it is a baseline that could win, and the test shows how far it got.
// (Uniform random inputs, the old baseline, hit all 8 bytes with probability
// 2^-64 per input: they could not win at all.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { havocChain } from "@fuzzfarm/corpus";
import { createRng } from "@fuzzfarm/rng";
import { example, inputReproducer, makeJob, runJob } from "./helpers";

const MAGIC = Buffer.from("FUZZFARM", "latin1");
/** How many leading bytes of `d` the target's nested ifs accept (8: the throw). */
const depthOf = (d: Uint8Array) => {
  let k = 0;
  while (k < MAGIC.length && d[k] === MAGIC[k]) k++;
  return k;
};

/** The engine's mutations without coverage feedback: every havoc chain starts from the empty input. */
function withoutFeedback(inputs: number, seed: number, depth: number, maxLen: number): { deepest: number; firstAt: number[] } {
  const rng = createRng(seed);
  const empty = new Uint8Array(0);
  const firstAt: number[] = [];
  let deepest = 0;
  for (let n = 0; n < inputs; ) {
    for (const step of havocChain(empty, rng, { depth, maxLen })) {
      if (n++ >= inputs) break;
      const d = depthOf(step.data);
      while (deepest < d) firstAt[deepest++] = n;
    }
  }
  return { deepest, firstAt };
}

test("coverage guidance finds the 8 magic bytes; the same mutations without coverage feedback do not", async () => {
  const target = example("magic-bytes.ts");
  const common = { dictionary: false, maxLen: 64, seed: 1, havocDepth: 4 };
  const started = Date.now();
  const guided = await runJob(makeJob(target, { ...common, stopOnFinding: true }, { runs: 50_000_000, seconds: 60 }));
  const seconds = (Date.now() - started) / 1000;
  const found = guided.findings.find((f) => f.message === "magic bytes reached: FUZZFARM");
  assert.ok(found, `not found in ${guided.execs} execs / ${seconds.toFixed(1)} s`);
  assert.equal(Buffer.from(inputReproducer(found).input!, "base64").subarray(0, 8).toString("latin1"), "FUZZFARM");
  // each solved byte was a corpus entry: the path to the bug is visible in the corpus
  const depths = guided.corpus.map((c) => depthOf(Buffer.from(c.data, "base64")));
  // (a mutation may solve two bytes at once now and then, so one step may be missing)
  const steps = [1, 2, 3, 4, 5, 6, 7].filter((k) => depths.includes(k));
  assert.ok(steps.length >= 6, `corpus entries solve ${steps.join(", ")} of the 7 partial prefixes: ${depths.join(",")}`);

  // the same number of inputs from the same mutations, no feedback
  const base = withoutFeedback(guided.execs, common.seed, common.havocDepth, common.maxLen);
  console.log(
    `# guided: all 8 bytes after ${found.detail.firstExec} execs (${guided.execs} run, ${seconds.toFixed(1)} s); ` +
      `without feedback, ${guided.execs} inputs: ${base.deepest} of 8 bytes (byte k first at input ${base.firstAt.join(", ")})`,
  );
  assert.ok(base.deepest < 8, "the baseline found the magic bytes too: guidance showed nothing");
  // the baseline is alive: it solves the first byte by luck, as coverage guidance does at the start
  assert.ok(base.deepest >= 1, `the baseline never matched the first byte in ${guided.execs} inputs`);
});
