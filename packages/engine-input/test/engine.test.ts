// Job results of the input engine: features and istanbul coverage, corpus
// candidates and their lineage, dictionary, progress, abort, self-test.
import { test } from "node:test";
import assert from "node:assert/strict";
import libCoverage from "istanbul-lib-coverage";
import { MUTATORS } from "@fuzzfarm/corpus";
import { inputEngine } from "../src/index";
import { fixture, makeJob, runJob, withCtx } from "./helpers";

const HELPER = "packages/engine-input/test/fixtures/helper.ts";
const USES = "packages/engine-input/test/fixtures/uses-helper.ts";

test("features and coverage: two TS files, keys relative to the repo root, istanbul map consistent", async () => {
  const r = await runJob(makeJob(fixture("uses-helper.ts"), {}, { runs: 4000, seconds: 10 }));
  assert.equal(r.error, undefined);
  for (const k of r.features) assert.match(k, /^(s|f):[^:]+:\d+$|^b:[^:]+:\d+:\d+$/);
  const files = new Set(r.features.map((k) => k.split(":")[1]));
  assert.deepEqual([...files].sort(), [HELPER, USES]);
  assert.ok(r.features.includes(`f:${HELPER}:0`));
  const map = libCoverage.createCoverageMap(r.coverage as never);
  assert.deepEqual(map.files().sort(), [HELPER, USES]);
  let counters = 0;
  for (const file of map.files()) {
    const fc = map.fileCoverageFor(file);
    const covered = Object.entries(fc.s).filter(([, n]) => n > 0).map(([id]) => `s:${file}:${id}`);
    assert.deepEqual(covered.sort(), r.features.filter((k) => k.startsWith(`s:${file}:`)).sort());
    counters += Object.keys(fc.s).length + Object.keys(fc.f).length + Object.values(fc.b).reduce((n, arms) => n + arms.length, 0);
    assert.ok(Object.values(fc.s).some((n) => n > 100), "hit counts, not just 0/1");
  }
  assert.equal(r.featureTotal, counters);
  assert.ok(r.features.length <= r.featureTotal);
});

test("corpus candidates bring disjoint new features, name their mutators, and descend from the seed", async () => {
  const seed = Buffer.from([0x10]).toString("base64"); // a "small" input: the seed of the lineage
  const r = await runJob(makeJob(fixture("uses-helper.ts"), { seed: 3 }, { runs: 4000, seconds: 10 }, [seed]));
  assert.ok(r.corpus.length >= 1);
  const names = new Set(MUTATORS.map((m) => m.name));
  const seen = new Set<string>();
  for (const c of r.corpus) {
    assert.ok(c.features.length > 0);
    for (const k of c.features) {
      assert.ok(!seen.has(k), `feature ${k} credited twice`);
      seen.add(k);
      assert.ok(r.features.includes(k));
    }
    const mutators = c.strategy.mutators as string[];
    assert.ok(mutators.length > 0 && mutators.every((m) => names.has(m)));
    assert.equal(c.parentId, "s0");
    assert.ok(typeof c.strategy.parent === "string");
  }
  // the seed itself is not a candidate (the coordinator already has it)
  assert.ok(!r.corpus.some((c) => c.data === seed));
  const y = r.strategyYield;
  assert.ok(Object.keys(y).length > 3 && Object.keys(y).every((k) => names.has(k)));
  for (const v of Object.values(y)) assert.ok(v.execs <= r.execs);
  const credited = Object.values(y).reduce((n, v) => n + v.newFeatures, 0);
  assert.ok(credited >= seen.size);
});

test("dictionary: literals of the target solve a whole-string comparison", async () => {
  const budget = { runs: 30_000, seconds: 20 };
  const withDict = await runJob(makeJob(fixture("string-token.cjs"), { dictionary: true, stopOnFinding: true }, budget));
  assert.equal(withDict.findings[0]?.message, "token matched");
  const without = await runJob(makeJob(fixture("string-token.cjs"), { dictionary: false }, { ...budget, runs: withDict.execs }));
  assert.equal(without.findings.length, 0);
});

test("progress is reported and abort ends a long job early with its results", async () => {
  const ac = new AbortController();
  const progress: number[] = [];
  // Abort half a second after the first progress report (at the latest after 20 s): a loaded machine starts the
  // executor late, and a fixed abort time then came before any report.
  let abortedAt = 0;
  const abort = () => {
    if (abortedAt) return;
    abortedAt = Date.now();
    ac.abort();
  };
  const fallback = setTimeout(abort, 20_000);
  const job = makeJob(fixture("uses-helper.ts"), {}, { runs: 1_000_000_000, seconds: 120 });
  const onProgress = (p: { execs: number }) => {
    if (progress.push(p.execs) === 1) setTimeout(abort, 500);
  };
  const r = await withCtx((ctx) => inputEngine.run(job, { ...ctx, onProgress }), ac.signal);
  clearTimeout(fallback);
  assert.ok(progress.length >= 1 && progress.every((v, i) => i === 0 || v >= progress[i - 1]!), `progress reports: ${progress.join(", ")}`);
  const took = Date.now() - abortedAt;
  assert.ok(took < 3500, `the job ended ${took} ms after the abort`);
  assert.ok(r.execs > 1000);
  assert.ok((r.features ?? []).length > 0);
});

test("runs budget is exact and the job never blocks the caller's event loop", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 50);
  const r = await runJob(makeJob(fixture("uses-helper.ts"), {}, { runs: 20_000, seconds: 30 }));
  clearInterval(timer);
  assert.equal(r.execs, 20_000);
  assert.ok(ticks >= Math.floor(r.busyMs / 50) * 0.5, `only ${ticks} ticks in ${r.busyMs} ms`);
});

test("selfTest passes with the shipped probes", async () => {
  await inputEngine.selfTest();
});
