// The race examples are evidence: plain node rarely fails them (under 5% of
// runs), the fuzzer makes at least 9 of the 10 fail within 100 runs (warm
// mode, strategy mix), their fixed twins never fail under the same strategy
// and parameters (the schedule that failed the buggy twin included), and a
// failing run's recorded schedule replays to the same failure at least 9
// times in 10, for every example the fuzzer made fail (at least 9).
// CI samples fewer plain and fixed-twin runs (20 and 12 per example);
// FUZZFARM_FULL_EVIDENCE=1 runs 100 and 30.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { dirname } from "node:path";
import { execute, WarmPool, sameFailureAs, toReplaySpec, type Execution } from "../src/index";
import { examples, mapLimit } from "./helpers";

const pool = new WarmPool(3);
after(() => pool.close());
const EX = examples();
const found = new Map<string, Execution>();
/** Least number of examples the fuzzer must make fail (and whose failures must replay). */
const MIN_FOUND = 9;

// The parameters the buggy twin is fuzzed with: `events` is the event count of one unperturbed run.
const paramsOf = new Map<string, Record<string, number>>();
async function fuzzParams(ex: { name: string; buggy: string }): Promise<Record<string, number>> {
  if (!paramsOf.has(ex.name)) {
    const base = await execute({ script: ex.buggy, args: [], strategy: "none", params: {}, seed: 0, timeoutMs: 10_000 }, pool);
    paramsOf.set(ex.name, { events: base.trace?.events.length ?? 20 });
  }
  return paramsOf.get(ex.name)!;
}
const FULL = process.env.FUZZFARM_FULL_EVIDENCE === "1";
const PLAIN_RUNS = FULL ? 100 : 20;
const FIXED_RUNS = FULL ? 30 : 12;

function plainNode(script: string): Promise<number> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [script], { stdio: "ignore" });
    c.on("close", (code) => resolve(code ?? 1));
  });
}

test("ten examples, each with a fixed twin", () => {
  assert.ok(EX.length >= 10, `${EX.length} examples`);
});

test(`plain node fails each example in under 5% of ${PLAIN_RUNS} runs`, async () => {
  for (const ex of EX) {
    // two at a time: more lanes than cores load the machine, and these examples race real I/O against timers
    const codes = await mapLimit(Array.from({ length: PLAIN_RUNS }), 2, () => plainNode(ex.buggy));
    const fails = codes.filter((c) => c !== 0).length;
    assert.ok(fails < PLAIN_RUNS * 0.05, `${ex.name}: plain node failed ${fails}/${PLAIN_RUNS}`);
  }
});

test(`fuzzfarm makes at least ${MIN_FOUND} of the 10 examples fail within 100 runs`, async () => {
  const firsts: string[] = [];
  for (const ex of EX) {
    const params = await fuzzParams(ex);
    for (let start = 1; start <= 100 && !found.has(ex.name); start += 10) {
      const runs = await mapLimit(Array.from({ length: 10 }, (_, i) => start + i), 3, (seed) =>
        execute({ script: ex.buggy, args: [], strategy: "mix", params, seed, timeoutMs: 10_000 }, pool));
      const f = runs.find((r) => r.outcome.kind !== "ok");
      if (f) { found.set(ex.name, f); firsts.push(`${ex.name}: seed ${f.spec.seed}`); }
    }
  }
  console.log(`# found ${found.size}/${EX.length}: ${firsts.join(", ")}`);
  assert.ok(found.size >= MIN_FOUND, `found ${found.size}/${EX.length}: ${firsts.join(", ")}`);
});

test(`no fixed twin fails (${FIXED_RUNS} fuzzed runs each, with its buggy twin's strategy and parameters, its failing seed included)`, async () => {
  for (const ex of EX) {
    // the buggy twin's parameters (from its own unperturbed run), so the fixed twin meets the same perturbations
    const params = found.get(ex.name)?.spec.params ?? (await fuzzParams(ex));
    const failing = found.get(ex.name)?.spec.seed;
    const seeds = [...new Set([...(failing === undefined ? [] : [failing]), ...Array.from({ length: FIXED_RUNS }, (_, i) => i + 1)])].slice(0, FIXED_RUNS);
    const runs = await mapLimit(seeds, 3, (seed) =>
      execute({ script: ex.fixed, args: [], strategy: "mix", params, seed, timeoutMs: 10_000 }, pool));
    assert.equal(runs.length, FIXED_RUNS);
    for (const r of runs) assert.deepEqual([r.spec.strategy, r.spec.params], ["mix", params]);
    const bad = runs.filter((r) => r.outcome.kind !== "ok");
    assert.deepEqual(bad.map((r) => `${ex.name} seed ${r.spec.seed}: ${"message" in r.outcome ? r.outcome.message : ""}`), []);
  }
});

test(`replaying a failing run's schedule reproduces it at least 9 times in 10, for every example the fuzzer made fail (at least ${MIN_FOUND})`, async () => {
  const rows: string[] = [];
  let replayed = 0;
  for (const ex of EX) {
    // the warm run located the bug; record a failing run in a process, as the CLI does
    let rec: Execution | null = null;
    const first = found.get(ex.name)?.spec.seed ?? 1;
    for (let seed = first; seed < first + 200 && !rec; seed += 2) {
      const pair = await mapLimit([seed, seed + 1], 2, (s) => execute({ script: ex.buggy, args: [], strategy: "mix", params: found.get(ex.name)?.spec.params ?? {}, seed: s, timeoutMs: 10_000 }));
      rec = pair.find((r) => r.outcome.kind !== "ok") ?? null;
    }
    // an example the warm runs made fail must fail again in 200 recorded runs; only one they missed may be skipped
    assert.ok(rec || !found.has(ex.name), `${ex.name}: failed in warm mode (seed ${found.get(ex.name)?.spec.seed}) but in none of 200 recorded runs`);
    if (!rec) { rows.push(`${ex.name}: no failing run recorded`); continue; }
    if (rec.outcome.kind === "ok") throw new Error("unreachable: the recorded run failed");
    const same = sameFailureAs(rec.outcome, dirname(ex.buggy));
    const sig = rec.outcome.message;
    const replays = await mapLimit(Array.from({ length: 10 }), 2, () =>
      execute({ script: ex.buggy, args: [], strategy: "none", params: {}, seed: 0, timeoutMs: 10_000, replay: toReplaySpec(rec!.trace!) }));
    const k = replays.filter((r) => same(r.outcome)).length;
    rows.push(`${ex.name}: ${k}/10`);
    replayed++;
    assert.ok(k >= 9, `${ex.name}: replay reproduced ${k}/10 (${sig})`);
  }
  console.log(`# replays: ${rows.join(", ")}`);
  assert.ok(replayed >= MIN_FOUND, `recorded and replayed ${replayed} of ${EX.length} examples:\n${rows.join("\n")}`);
});
