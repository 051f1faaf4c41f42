// FuzzFarm fuzzes its own stack parser: mutated real traces, spliced
// traces, token soup and pathological lines must never throw, must give the
// same state twice (pure, stable signature), and must stay fast per input.
// Deterministic: the seed is fixed; change SEED locally to explore further.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Finding } from "@fuzzfarm/protocol";
import { chooseBucket, compareStates, crashState, normalizeMessage, parseStack, type CrashState } from "../src/index";
import { FIXTURES, fixtureNames } from "./check-fixture";

const SEED = 0x5eed;
const ITERATIONS = 2500;
/** Generous per-input ceiling (the typical input takes well under a millisecond); catches catastrophic backtracking. */
const MAX_MS_PER_INPUT = 1000;

function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) as number;
  };
}

const TOKENS = [
  "    at ", " (", ")", ":", ":1:1", "0x", "wasm://wasm/8c5a3f2e:wasm-function[", "]:0x4d", "eval at ", ", <anonymous>:1:1", "file:///",
  "node:internal/", "# Fatal error in , line 0\n# Check failed: x\n", "FATAL ERROR: ", " 1: 0xdeadbeef v8::internal::Foo(int) [node]\n",
  "\n", "\r\n", "{", "}", "[cause]: ", "async ", "new ", " [as x]", "Error: ", "TypeError [ERR_X]: ", "^", "Pending handles:\n",
  "Timeout(a.js:1)\n", "😀", "\u0000", "%", "%E0%A4%A", "(anonymous namespace)", "/tmp/abc123/", "9".repeat(40), "\t",
];

const PATHOLOGICAL = [
  "    at " + "a (".repeat(400),
  "    at f (" + ":1".repeat(500),
  "    at " + "(".repeat(900) + ")".repeat(90),
  "1: " + "9".repeat(990) + ":",
  " 1: 0x" + "f".repeat(990),
  "    at eval (eval at " + "(eval at ".repeat(120) + "/a.js:1:1)",
  "# node[1]: " + " at ".repeat(240),
  "x".repeat(300_000),
  ("    at f (/srv/app/a.js:1:1)\n").repeat(20_000),
  ("    at " + "a (".repeat(330) + "\n").repeat(260),
  "Pending handles: " + "threads ".repeat(120) + ":",
  "0123456789abcdef".repeat(70),
  "a".repeat(500) + "-".repeat(500),
];

function mutate(text: string, r: (n: number) => number, donors: string[]): string {
  let lines = text.split("\n");
  const ops = 1 + r(6);
  for (let k = 0; k < ops; k++) {
    switch (r(7)) {
      case 0: { // flip characters
        const i = r(Math.max(1, lines.length));
        const l = lines[i] ?? "";
        const p = r(l.length + 1);
        lines[i] = l.slice(0, p) + String.fromCharCode(r(0x3000)) + l.slice(p + 1);
        break;
      }
      case 1: lines.splice(r(lines.length + 1), 0, TOKENS[r(TOKENS.length)]! + TOKENS[r(TOKENS.length)]!); break;
      case 2: lines.splice(r(lines.length + 1), 1); break;
      case 3: { const i = r(Math.max(1, lines.length)); lines.splice(i, 0, ...Array(1 + r(5)).fill(lines[i] ?? "")); break; }
      case 4: { const d = donors[r(donors.length)]!.split("\n"); const a = r(d.length); lines.splice(r(lines.length + 1), 0, ...d.slice(a, a + 1 + r(8))); break; }
      case 5: { const i = r(Math.max(1, lines.length)); const l = lines[i] ?? ""; const p = r(l.length + 1); lines[i] = l.slice(0, p) + TOKENS[r(TOKENS.length)] + l.slice(p); break; }
      default: lines = lines.reverse(); break;
    }
  }
  return lines.join("\n");
}

function randomFinding(stack: string, r: (n: number) => number): Finding {
  const reproducer = { engine: "node" as const, options: {} };
  const message = stack.split("\n")[r(3)] ?? "";
  switch (r(4)) {
    case 0: return Finding.parse({ kind: "hang", timeoutMs: 1000, message, stack, reproducer, detail: { handles: stack.split("\n").slice(0, 1 + r(6)), threads: r(2) ? [{ state: stack.slice(0, 20), at: stack.slice(5, 60) }, 7, null] : undefined } });
    case 1: return Finding.parse({ kind: "oracle", oracle: "nondeterminism", message, stack, reproducer, detail: r(2) ? { shape: stack.slice(0, 500) } : {} });
    default: {
      const kinds = ["uncaught", "rejection", "exit", "signal", "oom"];
      return Finding.parse({ kind: "crash", crashKind: kinds[r(kinds.length)], message, stack, reproducer, detail: { exitCode: r(300) - 10, signal: r(2) ? "SIGSEGV" : r(40) } });
    }
  }
}

function checkOne(f: Finding, label: string): { ms: number; state: CrashState } {
  const t0 = performance.now();
  const s1 = crashState(f, { rootDir: "/work/main/packages/triage/test/fixtures/gen" });
  const ms = performance.now() - t0;
  const s2 = crashState(f, { rootDir: "/work/main/packages/triage/test/fixtures/gen" });
  assert.deepEqual(s2, s1, `${label}: unstable state`);
  assert.equal(typeof s1.signature, "string");
  assert.ok(s1.signature.startsWith(s1.kind), `${label}: signature ${s1.signature}`);
  assert.ok(s1.frames.length <= 3);
  assert.ok(s1.signature.length < 2000 && s1.title.length <= 200, `${label}: unbounded output`);
  assert.ok(ms < MAX_MS_PER_INPUT, `${label}: ${ms.toFixed(1)} ms`);
  return { ms, state: s1 };
}

test(`self-fuzz: ${ITERATIONS} mutated traces (seed ${SEED}) never throw, are stable and fast`, () => {
  const donors = fixtureNames().map((n) => readFileSync(join(FIXTURES, `${n}.txt`), "utf8"));
  const r = rng(SEED);
  let worst = 0;
  let total = 0;
  const states: CrashState[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const text = mutate(donors[r(donors.length)]!, r, donors);
    const { ms, state } = checkOne(randomFinding(text, r), `iteration ${i}`);
    worst = Math.max(worst, ms);
    total += ms;
    if (i % 50 === 0) states.push(state);
    assert.doesNotThrow(() => parseStack(text, { rootDir: r(2) ? "/" : "" }));
  }
  // bucket choice over fuzzed states, each against the OTHER states' buckets (its own would match for certain):
  // never throws, never crosses kinds, "exact" only for an equal signature, "similar" only where the one
  // same-bug rule says so; and a copy of the state itself under another id is always found exactly
  const cands = states.map((s, i) => ({ id: `b${i}`, ...s }));
  const rules: Record<string, number> = {};
  states.forEach((s, i) => {
    const others = cands.filter((_, k) => k !== i);
    const c = chooseBucket(s, others);
    rules[c.rule] = (rules[c.rule] ?? 0) + 1;
    if (c.bucketId !== null) {
      const chosen = others.find((x) => x.id === c.bucketId)!;
      assert.equal(chosen.kind, s.kind, `state ${i}: bucket of another kind`);
      if (c.rule === "exact") assert.equal(chosen.signature, s.signature);
      else assert.ok(compareStates(s, chosen).similar, `state ${i}: "${c.rule}" bucket not similar`);
    } else {
      assert.ok(others.every((x) => x.signature !== s.signature && !compareStates(s, x).similar), `state ${i}: a matching bucket was passed over`);
    }
    const self = chooseBucket(s, [...others, { ...cands[i]!, id: "copy" }]);
    assert.equal(self.rule, "exact");
  });
  console.log(`# self-fuzz: ${ITERATIONS} inputs, mean ${(total / ITERATIONS).toFixed(3)} ms, worst ${worst.toFixed(1)} ms; bucket rules ${JSON.stringify(rules)}`);
});

test("self-fuzz: pathological lines stay within the per-input bound", () => {
  PATHOLOGICAL.forEach((text, i) => {
    const r = rng(SEED + i);
    for (let k = 0; k < 4; k++) checkOne(randomFinding(text, r), `pathological ${i}`);
    const t0 = performance.now();
    normalizeMessage(text);
    assert.ok(performance.now() - t0 < MAX_MS_PER_INPUT, `normalizeMessage pathological ${i}`);
  });
});
