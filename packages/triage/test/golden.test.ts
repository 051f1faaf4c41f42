// Golden files: every real trace under fixtures/ parses to its hand-checked state.
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { FIXTURES, checkFixture, fixtureNames } from "./check-fixture";

for (const name of fixtureNames()) {
  test(`golden: ${name}`, () => {
    checkFixture(name);
  });
}

test("golden: every fixture has an expected state and the set covers each trace family", () => {
  const names = fixtureNames();
  for (const n of names) assert.ok(existsSync(join(FIXTURES, `${n}.expected.json`)), `${n}.expected.json missing`);
  const orphans = readdirSync(FIXTURES).filter((f) => f.endsWith(".expected.json") && !names.includes(f.replace(/\.expected\.json$/, "")));
  assert.deepEqual(orphans, []);
  for (const family of ["sync-throw", "async-callback-throw", "unhandled-rejection", "esm-throw", "ts-tsx", "ts-source-maps", "oom", "abort", "wasm-trap-unreachable", "v8-check-failed", "sigsegv", "hang-handles"]) {
    assert.ok(names.includes(family), `missing fixture ${family}`);
  }
});
