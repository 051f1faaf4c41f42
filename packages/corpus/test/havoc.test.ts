import { test } from "node:test";
import assert from "node:assert/strict";
import { createRng } from "@fuzzfarm/rng";
import { MUTATORS, havoc, havocChain, randomInput } from "../src/index";

test("havoc is deterministic per seed, bounded, and names real mutators", () => {
  const names = new Set(MUTATORS.map((m) => m.name));
  const input = new TextEncoder().encode("seed input");
  const heights = new Set<number>();
  for (let seed = 0; seed < 300; seed++) {
    const a = havoc(input, createRng(seed), { depth: 3, maxLen: 32, corpus: [new Uint8Array([1, 2, 3])] });
    const b = havoc(input, createRng(seed), { depth: 3, maxLen: 32, corpus: [new Uint8Array([1, 2, 3])] });
    assert.deepEqual(a, b);
    assert.ok(a.data.length <= 32);
    assert.ok(a.applied.length >= 1 && a.applied.length <= 8);
    for (const n of a.applied) assert.ok(names.has(n), n);
    heights.add(a.applied.length);
  }
  assert.ok(heights.has(1) && heights.has(8), `stack heights seen: ${[...heights]}`);
});

test("havoc grows an empty input and never uses absent dictionaries", () => {
  let nonEmpty = 0;
  for (let seed = 0; seed < 100; seed++) {
    const r = havoc(new Uint8Array(0), createRng(seed), { depth: 2 });
    assert.ok(r.applied.length > 0);
    if (r.data.length > 0) nonEmpty++; // a later deleteBytes may empty it again
    assert.ok(!r.applied.some((n) => n.startsWith("dict") || n === "splice"));
  }
  assert.ok(nonEmpty > 80, `non-empty ${nonEmpty}/100`);
});

test("randomInput draws lengths and bytes uniformly", () => {
  const r = createRng(9);
  let total = 0;
  const bytes = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const x = randomInput(r, 16);
    assert.ok(x.length <= 16);
    total += x.length;
    x.forEach((b) => bytes.add(b));
  }
  assert.ok(total / 2000 > 7 && total / 2000 < 9);
  assert.equal(bytes.size, 256);
});

test("havocChain yields every step of one stack, each one mutation further", () => {
  const input = new TextEncoder().encode("chain me");
  for (let seed = 0; seed < 100; seed++) {
    const chain = havocChain(input, createRng(seed), { depth: 4 });
    assert.ok(chain.length >= 1 && chain.length <= 16);
    chain.forEach((step, j) => {
      assert.equal(step.applied.length, j + 1);
      if (j > 0) assert.deepEqual(step.applied.slice(0, j), chain[j - 1]!.applied);
    });
    // havoc with the same seed ends where the chain ends
    assert.deepEqual(havoc(input, createRng(seed), { depth: 4 }), chain[chain.length - 1]);
  }
});
