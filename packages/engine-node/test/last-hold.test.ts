// horizon's "last" hold: a completion postponed until the program is
// otherwise quiet (no request in flight, nothing else held) runs after work
// that started later, as a slow thread pool would answer it; the archiver-388
// bug (bench/real-bugs) needs exactly that for a failing lstat.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { execute } from "../src/index";
import { FIXTURES, mapLimit } from "./helpers";

const script = join(FIXTURES, "last-completion.cjs");
// every held completion waits to be last; nothing else is perturbed
const LAST_ONLY = { ioProb: 1, followProb: 0, closeProb: 0, timerLateProb: 0, shortShare: 0, crossShare: 0, nextShare: 0, lastShare: 1 };

test("a completion held last runs after a chain of requests started after it (5 seeds); plain runs answer it first", async () => {
  const plain = await execute({ script, args: [], strategy: "none", params: {}, seed: 1, timeoutMs: 20_000 });
  assert.equal(plain.result.stdout.trim(), "stat,chain");
  const runs = await mapLimit([1, 2, 3, 4, 5], 2, (seed) => execute({ script, args: [], strategy: "horizon", params: LAST_ONLY, seed, timeoutMs: 20_000 }));
  assert.deepEqual(runs.map((r) => r.result.stdout.trim()), ["chain,stat", "chain,stat", "chain,stat", "chain,stat", "chain,stat"]);
});

test("without the last share the same parameters keep plain order", async () => {
  const runs = await mapLimit([1, 2, 3], 2, (seed) => execute({ script, args: [], strategy: "horizon", params: { ...LAST_ONLY, lastShare: 0, ioProb: 0 }, seed, timeoutMs: 20_000 }));
  assert.deepEqual(runs.map((r) => r.result.stdout.trim()), ["stat,chain", "stat,chain", "stat,chain"]);
});
