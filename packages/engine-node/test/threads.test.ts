// The slow thread (preload/threads.cjs, rule in the engine README): under
// `late` a worker thread that posts to its parent stops until the parent has
// handled that message and started more callbacks, never longer than
// stallMs; nothing is reordered or lost, the program's own first message to
// the worker reaches it, the fuzzer's variable is hidden from it, and a
// Worker sharing the process environment is left alone. Each check fails if
// the rule breaks.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { execute, toReplaySpec, WarmPool } from "../src/index";
import { FIXTURES, mapLimit } from "./helpers";

const pool = new WarmPool(2);
after(() => pool.close());
const SEEDS = [1, 2, 3, 4, 5];

interface Out { atHandle: number; got: string | null; hidden: boolean | null; order: number[]; waitedMs: number }

async function runs(mode: string, params: Record<string, number>, seeds = SEEDS, warm = true): Promise<Out[]> {
  const rs = await mapLimit(seeds, 2, (seed) =>
    execute({ script: join(FIXTURES, "slow-thread.cjs"), args: [mode], strategy: "late", params: { lateProb: 1, ...params }, seed, timeoutMs: 20_000 }, warm ? pool : undefined));
  return rs.map((r) => {
    assert.equal(r.outcome.kind, "ok", `seed ${r.spec.seed}: ${r.result.stderr}`);
    return JSON.parse(r.result.stdout.trim()) as Out;
  });
}

test("a worker that posts stops until its parent handled the message (5 seeds); without stalls it has moved on by then", async () => {
  const slow = await runs("plain", { stallProb: 1 });
  for (const o of slow) {
    assert.equal(o.atHandle, 0, `the worker ran past its post before the parent handled it: ${JSON.stringify(o)}`);
    assert.equal(o.got, "first", "the program's first message to the worker reached it");
    assert.equal(o.hidden, true, "FUZZFARM_THREAD is hidden from the worker");
    assert.deepEqual(o.order, [0, 1, 2, 3, 4], "messages in order, none lost");
  }
  // the answer is held (late), so a worker that does not stall has set the flag long before it is handled
  const quick = await runs("plain", { stallProb: 0 });
  assert.ok(quick.filter((o) => o.atHandle === 1).length >= 3, `without stalls the worker usually set the flag first: ${JSON.stringify(quick)}`);
});

test("in a spawned process too, and for `import { Worker }` in ESM", async () => {
  const [cjs] = await runs("plain", { stallProb: 1 }, [7], false);
  assert.equal(cjs!.atHandle, 0);
  const esm = await execute({ script: join(FIXTURES, "slow-thread.mjs"), args: [], strategy: "late", params: { lateProb: 1, stallProb: 1 }, seed: 7, timeoutMs: 20_000 });
  assert.equal(esm.outcome.kind, "ok", esm.result.stderr);
  assert.deepEqual(JSON.parse(esm.result.stdout.trim()), { atHandle: 0 });
});

test("a parent blocked on the worker (a synchronous handshake) waits at most stallMs, no deadlock", async () => {
  const [o] = await runs("sync", { stallProb: 1, stallMs: 300 }, [3]);
  assert.ok(o!.waitedMs >= 250 && o!.waitedMs < 5_000, `waited ${o!.waitedMs} ms`);
  assert.deepEqual(o!.order, [0, 1, 2, 3, 4]);
});

test("a Worker that shares the process environment is left alone", async () => {
  for (const o of await runs("share", { stallProb: 1 }, [1, 2])) {
    assert.equal(o.got, "first");
    assert.deepEqual(o.order, [0, 1, 2, 3, 4]);
  }
});

test("a replay stalls the same posts as its recording; without the recorded stalls it does not", async () => {
  const script = join(FIXTURES, "slow-thread.cjs");
  const rec = await execute({ script, args: ["plain"], strategy: "late", params: { lateProb: 1, stallProb: 1 }, seed: 11, timeoutMs: 20_000 });
  assert.equal(JSON.parse(rec.result.stdout.trim()).atHandle, 0);
  assert.ok(rec.trace!.threads, "the trace records the thread stalls");
  const replay = (withThreads: boolean) => execute({
    script, args: ["plain"], strategy: "none", params: {}, seed: 11, timeoutMs: 20_000,
    replay: toReplaySpec(withThreads ? rec.trace! : { ...rec.trace!, threads: null }),
  });
  // A replay pins the parent's deliveries to their recorded times, not the thread's pace: on a loaded machine a
  // stall may reach its bound before the recorded delivery, so 2 of 3 replays are asked of each side.
  const flags = async (withThreads: boolean) => {
    const out: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await replay(withThreads);
      out.push(JSON.parse(r.result.stdout.trim()).atHandle);
    }
    return out;
  };
  const same = await flags(true);
  assert.ok(same.filter((f) => f === 0).length >= 2, `replays with the recorded stalls: ${same}`);
  // the recorded hold keeps the answer back, so a worker that does not stall has set the flag by then
  const without = await flags(false);
  assert.ok(without.filter((f) => f === 1).length >= 2, `replays without them: ${without}`);
});
