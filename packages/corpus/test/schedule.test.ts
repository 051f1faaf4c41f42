import { test } from "node:test";
import assert from "node:assert/strict";
import { createRng } from "@fuzzfarm/rng";
import { Corpus, seedWeight, selectSeeds, type SeedStats } from "../src/index";

const entry = (id: string, over: Partial<SeedStats> = {}): SeedStats => ({
  id,
  data: new Uint8Array([id.charCodeAt(0)]),
  execTimeUs: 100,
  newFeatures: 1,
  timesChosen: 0,
  timesProductive: 0,
  addedAt: 0,
  ...over,
});

test("the weight formula favours fast, productive, recent seeds", () => {
  const base = entry("a");
  const w = (e: SeedStats) => seedWeight(e, 100_000, 100, 20_000);
  assert.ok(w({ ...base, execTimeUs: 25 }) > w(base));
  assert.ok(w({ ...base, timesProductive: 5, timesChosen: 100 }) > w({ ...base, timesChosen: 100 }));
  assert.ok(w({ ...base, addedAt: 100_000 }) > w(base));
  assert.ok(w({ ...base, lastProductiveAt: 99_000 }) > w(base));
  assert.ok(w({ ...base, newFeatures: 30 }) > w(base));
  // fatigue: heavily chosen, never productive seeds fade
  assert.ok(w({ ...base, timesChosen: 10_000 }) < w(base) / 50);
  // exact value of a fresh seed at age 0: speed 1 * novelty 2 * yield 1 * recency 5
  assert.equal(seedWeight(entry("x"), 0, 100), 10);
});

test("Corpus.pick follows the weights and counts choices", () => {
  const c = new Corpus({ halfLife: 1000 });
  c.add(entry("slow", { execTimeUs: 10_000 }));
  c.add(entry("fast", { execTimeUs: 10 }));
  c.now = 50_000; // both old: recency ~1
  const rng = createRng(2);
  const n = { slow: 0, fast: 0 } as Record<string, number>;
  for (let i = 0; i < 4000; i++) n[c.pick(rng).id]!++;
  // weights 8:1, and fatigue turns long-run pick counts into ~sqrt(8):1
  assert.ok(n.fast! > n.slow! * 2.2 && n.fast! < n.slow! * 4, JSON.stringify(n));
  assert.equal(c.get("fast")!.timesChosen + c.get("slow")!.timesChosen, 4000);
});

test("a rewarded seed gets picked more than its idle sibling", () => {
  const c = new Corpus({ halfLife: 1000 });
  c.add(entry("a"));
  c.add(entry("b"));
  c.now = 10_000;
  c.reward("b");
  const rng = createRng(4);
  let b = 0;
  for (let i = 0; i < 2000; i++) if (c.pick(rng).id === "b") b++;
  assert.ok(b > 1400, `b picked ${b}/2000`);
  assert.throws(() => new Corpus().pick(rng), RangeError);
  assert.throws(() => c.add(entry("a")), /duplicate/);
});

test("selectSeeds samples without replacement, deterministically, by weight", () => {
  const entries = [entry("heavy", { timesProductive: 20, execTimeUs: 10 }), ...["b", "c", "d", "e", "f", "g"].map((id) => entry(id))];
  const pick = (seed: number) => selectSeeds(entries, 3, createRng(seed), { now: 1e6 }).map((e) => e.id);
  assert.deepEqual(pick(1), pick(1));
  let heavy = 0;
  for (let seed = 0; seed < 300; seed++) {
    const ids = pick(seed);
    assert.equal(ids.length, 3);
    assert.equal(new Set(ids).size, 3);
    if (ids.includes("heavy")) heavy++;
  }
  assert.ok(heavy > 290, `heavy chosen ${heavy}/300`);
  assert.equal(selectSeeds(entries, 100, createRng(1)).length, entries.length);
  assert.deepEqual(selectSeeds([], 3, createRng(1)), []);
});
