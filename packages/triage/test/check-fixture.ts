// The ONE helper that checks a golden fixture: fixtures/<name>.txt is what a
// real node process printed (see fixtures/gen/regenerate.mjs), and
// fixtures/<name>.expected.json holds the Finding an engine would report for
// that run, the root dir it ran in, and the hand-checked expected state.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Finding } from "@fuzzfarm/protocol";
import { crashState, parseStack } from "../src/index";

export const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

export interface Expected {
  kind: string;
  type: string;
  /** Display strings of the state's frames. */
  frames: string[];
  signature: string;
  title: string;
  normalizedMessage: string;
  /** Frames parseStack finds in the whole text, noise included. */
  parsedFrames: number;
  /** How many parsed frames each ignore entry of the pattern table marked. */
  ignored: Record<string, number>;
}

/** Names of all fixtures (a .txt file each). */
export function fixtureNames(): string[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".txt"))
    .map((f) => f.slice(0, -4))
    .sort();
}

/** Check one fixture against its expected state; returns the state for further checks. */
export function checkFixture(name: string) {
  const text = readFileSync(join(FIXTURES, `${name}.txt`), "utf8");
  const spec = JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), "utf8")) as {
    rootDir: string;
    finding: unknown;
    expect: Expected | null;
  };
  assert.ok(spec.expect, `${name}: no "expect" block yet (fill it in after reviewing regenerate.mjs --print)`);
  const finding = Finding.parse({ ...(spec.finding as object), stack: text });
  const state = crashState(finding, { rootDir: spec.rootDir });
  const frames = parseStack(text, { rootDir: spec.rootDir });
  const ignored: Record<string, number> = {};
  for (const f of frames) if (f.ignored) ignored[f.ignored] = (ignored[f.ignored] ?? 0) + 1;
  const actual: Expected = {
    kind: state.kind,
    type: state.type,
    frames: state.frames.map((f) => f.display),
    signature: state.signature,
    title: state.title,
    normalizedMessage: state.normalizedMessage,
    parsedFrames: frames.length,
    ignored,
  };
  assert.deepEqual(actual, spec.expect, `${name}: state differs from ${name}.expected.json`);
  // pure: a second run gives the same state
  assert.deepEqual(crashState(finding, { rootDir: spec.rootDir }), state, `${name}: crashState is not deterministic`);
  return state;
}
