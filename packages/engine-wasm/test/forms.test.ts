// Every instruction and form of the threads proposal (issue 25, item 1; README table "Every instruction
// and form"): seeds 0..199 of the default generator emit each of them, and their programs encode and
// validate. The expected results of such programs are checked on real threads by `fuzzfarm wasm run`
// (test/generator.test.ts runs generated programs through the oracles).
import { test } from "node:test";
import assert from "node:assert/strict";
import { emitWat, encodeWat, generate, parseGenConfig } from "../src/index";
import { formsOf, THREADS_FORMS, THREADS_INSTRUCTIONS } from "../src/internal/gen/forms";

test("seeds 0..199 of the default generator emit every threads instruction and form", async () => {
  const cfg = parseGenConfig({});
  const seen = new Set<string>();
  for (let seed = 0; seed < 200; seed++) {
    const p = generate(seed, cfg);
    const wat = emitWat(p);
    for (const f of formsOf(p, wat)) seen.add(f);
    if (seed % 20 === 0) await encodeWat(wat, `seed-${seed}.wat`); // some of them through wabt's validator
  }
  const missing = [...THREADS_INSTRUCTIONS, ...Object.keys(THREADS_FORMS)].filter((f) => !seen.has(f));
  assert.deepEqual(missing, []);
});

test("with forms off, none of the new forms is emitted (an optimizer probe can turn them off)", () => {
  const cfg = parseGenConfig({ forms: false, fence: false });
  for (let seed = 0; seed < 50; seed++) {
    const p = generate(seed, cfg);
    const f = formsOf(p, emitWat(p));
    for (const k of ["atomic.fence", "memarg offset small", "memarg offset large", "memarg align", "wait expected differs", "result dropped"]) assert.ok(!f.has(k), `seed ${seed}: ${k}`);
  }
});
