// The acceptance check: the 8-byte example is found by coverage guidance
// (dictionary off, so the literals do not give it away) within 60 s, and the
// same number of uniform random inputs does not find it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { example, makeJob, runJob } from "./helpers";

test("coverage guidance finds the 8 magic bytes; as many uniform random inputs do not", async () => {
  const target = example("magic-bytes.ts");
  const common = { dictionary: false, maxLen: 64, seed: 1 };
  const started = Date.now();
  const guided = await runJob(makeJob(target, { ...common, stopOnFinding: true }, { runs: 50_000_000, seconds: 60 }));
  const seconds = (Date.now() - started) / 1000;
  const found = guided.findings.find((f) => f.message === "magic bytes reached: FUZZFARM");
  assert.ok(found, `not found in ${guided.execs} execs / ${seconds.toFixed(1)} s`);
  assert.equal(Buffer.from(found.reproducer.input!, "base64").subarray(0, 8).toString("latin1"), "FUZZFARM");
  // each solved byte was a corpus entry: the path to the bug is visible in the corpus
  assert.ok(guided.corpus.length >= 8, `corpus ${guided.corpus.length}`);

  const random = await runJob(makeJob(target, { ...common, coverageGuided: false }, { runs: guided.execs, seconds: 600 }));
  assert.equal(random.execs, guided.execs, "the random run must get the same number of inputs");
  assert.equal(random.findings.length, 0);
  assert.ok(random.features.length < guided.features.length);
  console.log(
    `# guided: found after ${found.detail.firstExec} execs (${guided.execs} run, ${seconds.toFixed(1)} s, ` +
      `${guided.features.length} features); random: ${random.execs} execs, ${random.features.length} features, no finding`,
  );
});
