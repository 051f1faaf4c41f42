// The race examples are evidence: plain node rarely fails them (under 5% of
// runs), the fuzzer makes at least 9 of the 10 fail within 100 runs (warm
// mode, strategy mix), their fixed twins never fail, and a failing run's
// recorded schedule replays to the same failure at least 9 times in 10.
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

test("fuzzfarm makes at least 9 of the 10 examples fail within 100 runs", async () => {
  const firsts: string[] = [];
  for (const ex of EX) {
    const base = await execute({ script: ex.buggy, args: [], strategy: "none", params: {}, seed: 0, timeoutMs: 10_000 }, pool);
    const events = base.trace?.events.length ?? 20;
    for (let start = 1; start <= 100 && !found.has(ex.name); start += 10) {
      const runs = await mapLimit(Array.from({ length: 10 }, (_, i) => start + i), 3, (seed) =>
        execute({ script: ex.buggy, args: [], strategy: "mix", params: { events }, seed, timeoutMs: 10_000 }, pool));
      const f = runs.find((r) => r.outcome.kind !== "ok");
      if (f) { found.set(ex.name, f); firsts.push(`${ex.name}: seed ${f.spec.seed}`); }
    }
  }
  assert.ok(found.size >= 9, `found ${found.size}/10: ${firsts.join(", ")}`);
});

test(`no fixed twin fails (${FIXED_RUNS} fuzzed runs each)`, async () => {
  for (const ex of EX) {
    const runs = await mapLimit(Array.from({ length: FIXED_RUNS }, (_, i) => i + 1), 3, (seed) =>
      execute({ script: ex.fixed, args: [], strategy: "mix", params: {}, seed, timeoutMs: 10_000 }, pool));
    const bad = runs.filter((r) => r.outcome.kind !== "ok");
    assert.deepEqual(bad.map((r) => `${ex.name} seed ${r.spec.seed}: ${"message" in r.outcome ? r.outcome.message : ""}`), []);
  }
});

test("replaying a failing run's schedule reproduces it at least 9 times in 10, for every example found", async () => {
  const rows: string[] = [];
  for (const ex of EX) {
    // the warm run located the bug; record a failing run in a process, as the CLI does
    let rec: Execution | null = null;
    const first = found.get(ex.name)?.spec.seed ?? 1;
    for (let seed = first; seed < first + 200 && !rec; seed += 2) {
      const pair = await mapLimit([seed, seed + 1], 2, (s) => execute({ script: ex.buggy, args: [], strategy: "mix", params: found.get(ex.name)?.spec.params ?? {}, seed: s, timeoutMs: 10_000 }));
      rec = pair.find((r) => r.outcome.kind !== "ok") ?? null;
    }
    if (!rec) { rows.push(`${ex.name}: no failing run recorded`); continue; }
    if (rec.outcome.kind === "ok") throw new Error("unreachable: the recorded run failed");
    const same = sameFailureAs(rec.outcome, dirname(ex.buggy));
    const sig = rec.outcome.message;
    const replays = await mapLimit(Array.from({ length: 10 }), 2, () =>
      execute({ script: ex.buggy, args: [], strategy: "none", params: {}, seed: 0, timeoutMs: 10_000, replay: toReplaySpec(rec!.trace!) }));
    const k = replays.filter((r) => same(r.outcome)).length;
    rows.push(`${ex.name}: ${k}/10`);
    assert.ok(k >= 9, `${ex.name}: replay reproduced ${k}/10 (${sig})`);
  }
  assert.ok(rows.length === EX.length, rows.join("\n"));
});
