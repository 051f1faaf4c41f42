import { test } from "node:test";
import assert from "node:assert/strict";
import { createRng } from "@fuzzfarm/rng";
import {
  MUTATORS,
  bitFlip,
  byteSet,
  insertBytes,
  deleteBytes,
  dictInsert,
  dictOverwrite,
  splice,
  interesting,
  arithmetic,
  duplicateBlock,
  copyBlock,
} from "../src/index";

const enc = (s: string) => new TextEncoder().encode(s);
const ctx = { maxLen: 64, dictionary: [enc("TOKEN")], corpus: [enc("other-entry-bytes")] };

test("every mutator is pure, deterministic per seed and respects maxLen", () => {
  for (const m of MUTATORS) {
    for (let seed = 0; seed < 200; seed++) {
      const input = enc("hello fuzzing world " + seed);
      const copy = input.slice();
      const a = m.mutate(input, createRng(seed), ctx);
      const b = m.mutate(input, createRng(seed), ctx);
      assert.deepEqual(input, copy, `${m.name} wrote to its input`);
      assert.deepEqual(a, b, `${m.name} not deterministic`);
      assert.ok(a.length <= ctx.maxLen, `${m.name} exceeded maxLen`);
    }
  }
});

test("mutators that cannot apply return the input itself", () => {
  const empty = new Uint8Array(0);
  const r = createRng(1);
  for (const m of [bitFlip, byteSet, deleteBytes, interesting, arithmetic, copyBlock, duplicateBlock, dictOverwrite]) {
    assert.equal(m.mutate(empty, r, ctx), empty, m.name);
  }
  const x = enc("abc");
  assert.equal(dictInsert.mutate(x, r, { maxLen: 64 }), x);
  assert.equal(splice.mutate(x, r, { maxLen: 64, corpus: [] }), x);
  const full = new Uint8Array(64);
  assert.equal(insertBytes.mutate(full, r, ctx), full);
});

test("bitFlip changes exactly one bit, byteSet exactly one byte", () => {
  for (let seed = 0; seed < 100; seed++) {
    const input = enc("abcdefgh");
    const f = bitFlip.mutate(input, createRng(seed), ctx);
    let bits = 0;
    for (let i = 0; i < input.length; i++) {
      let x = input[i]! ^ f[i]!;
      while (x) (bits += x & 1), (x >>= 1);
    }
    assert.equal(bits, 1);
    const s = byteSet.mutate(input, createRng(seed), ctx);
    assert.equal(s.filter((v, i) => v !== input[i]).length, 1);
  }
});

test("insert grows, delete shrinks, dictionary tokens land in the output", () => {
  for (let seed = 0; seed < 100; seed++) {
    const input = enc("0123456789");
    assert.ok(insertBytes.mutate(input, createRng(seed), ctx).length > input.length);
    assert.ok(deleteBytes.mutate(input, createRng(seed), ctx).length < input.length);
    const di = new TextDecoder().decode(dictInsert.mutate(input, createRng(seed), ctx));
    assert.ok(di.includes("TOKEN") && di.length === input.length + 5);
    const dov = new TextDecoder().decode(dictOverwrite.mutate(input, createRng(seed), ctx));
    assert.ok(dov.includes("TOKEN") && dov.length === input.length);
  }
});

test("splice is a head of the input followed by a piece of the other entry", () => {
  const other = ctx.corpus[0]!;
  const otherText = new TextDecoder().decode(other);
  let changed = 0;
  for (let seed = 0; seed < 200; seed++) {
    const input = enc("AAAAAAAAAA");
    const out = new TextDecoder().decode(splice.mutate(input, createRng(seed), ctx));
    const head = out.match(/^A*/)![0];
    assert.ok(otherText.includes(out.slice(head.length)), out);
    if (out !== "AAAAAAAAAA") changed++;
  }
  assert.ok(changed > 150);
});
