// Frame syntaxes and noise rules of the pattern table, one case each.
// (Whole real traces are in golden.test.ts; these pin the corners.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { STACK_PATTERNS, parseStack } from "../src/index";

const root = "/srv/app";
const one = (line: string) => {
  const fs = parseStack(line, { rootDir: root });
  assert.equal(fs.length, 1, `one frame from ${JSON.stringify(line)}`);
  return fs[0]!;
};

test("V8 frame forms: named, anonymous, async, new, [as alias], file URL", () => {
  assert.deepEqual(
    { ...one("    at parseHeader (/srv/app/lib/parse.js:3:11)") },
    { fn: "parseHeader", file: "lib/parse.js", line: 3, col: 11, display: "parseHeader (lib/parse.js:3:11)", lang: "js", async: false, ignored: null },
  );
  assert.equal(one("    at /srv/app/x.js:1:2").fn, "<anonymous>");
  const a = one("    at async Promise.all (index 0)");
  assert.equal(a.async, true);
  assert.equal(a.ignored, "v8-builtin");
  assert.equal(one("    at new Pool (file:///srv/app/src/pool.mjs:10:5)").fn, "new Pool");
  assert.equal(one("    at new Pool (file:///srv/app/src/pool.mjs:10:5)").file, "src/pool.mjs");
  assert.equal(one("    at Timeout.onTimer [as _onTimeout] (/srv/app/t.js:1:38)").fn, "Timeout.onTimer");
  assert.equal(one("    at file:///srv/app/my%20dir/a.mjs:2:3").file, "my dir/a.mjs");
});

test("paths outside the root: dependencies from node_modules, temp dirs masked, Windows paths", () => {
  assert.equal(one("    at f (/home/ci/.cache/x/node_modules/left-pad/index.js:1:1)").file, "node_modules/left-pad/index.js");
  assert.equal(one("    at f (/tmp/tmp-123abc/job.js:4:1)").file, "<tmp>/job.js");
  assert.equal(one("    at f (C:\\srv\\app\\lib\\a.js:4:1)").file, "C:/srv/app/lib/a.js");
  assert.equal(parseStack("    at f (C:\\srv\\app\\lib\\a.js:4:1)", { rootDir: "C:\\srv\\app" })[0]!.file, "lib/a.js");
});

test("noise: node internals, legacy builtins, eval wrapper, fuzzfarm engine frames, test harnesses", () => {
  const cases: [string, string][] = [
    ["    at Module._compile (node:internal/modules/cjs/loader:1521:14)", "node-internal"],
    ["    at emit (node:events:519:28)", "node-internal"],
    ["    at emitOne (events.js:116:13)", "node-legacy-builtin"],
    ["    at [eval]-wrapper:6:24", "node-eval-wrapper"],
    ["    at Array.map (<anonymous>)", "v8-builtin"],
    ["    at runOne (/opt/ff/packages/engine-node/src/executor.cjs:7:1)", "fuzzfarm-engine"],
    ["    at run (/srv/app/node_modules/@fuzzfarm/engine-input/src/run.ts:1:1)", "fuzzfarm-engine"],
    ["    at boot (/opt/fuzzfarm/preload.cjs:3:3)", "fuzzfarm-preload"],
    ["    at Context.<anonymous> (/srv/app/node_modules/mocha/lib/runnable.js:354:21)", "test-harness"],
    ["    at callAsyncCircusFn (/srv/app/node_modules/jest-circus/build/utils.js:298:28)", "test-harness"],
    ["    at runTest (/srv/app/node_modules/@vitest/runner/dist/index.js:781:11)", "test-harness"],
    ["    at Test.main (/srv/app/node_modules/tap/lib/test.js:1:1)", "test-harness"],
  ];
  for (const [line, id] of cases) assert.equal(one(line).ignored, id, line);
  // a user's own directory named like a harness is not noise
  assert.equal(one("    at f (/srv/app/lib/mocha.js:1:1)").ignored, null);
  assert.equal(one("    at f (/home/me/fuzzfarm/app/lib/index.js:1:1)").ignored, null);
});

test("eval frames locate the eval call site; stray 'at' prose is not a frame", () => {
  const f = one("    at eval (eval at <anonymous> (eval at outer (/srv/app/a.js:2:3)), <anonymous>:1:1)");
  assert.equal(f.file, "a.js");
  assert.equal(f.line, 2);
  assert.deepEqual(parseStack("Error: expected at least one item\n    at most twice", { rootDir: root }), []);
});

test("wasm frames: named ($ dropped) and unnamed; the module hash is not part of the file", () => {
  const [a, b] = parseStack("    at $decode (wasm://wasm/8c5a3f2e:wasm-function[3]:0x4d)\n    at wasm://wasm/8c5a3f2e:wasm-function[7]:0x1a0", {});
  assert.equal(a!.fn, "decode");
  assert.equal(a!.file, "wasm://wasm");
  assert.equal(a!.lang, "wasm");
  assert.equal(a!.line, 3);
  assert.equal(a!.col, 0x4d);
  assert.equal(b!.fn, "wasm-function[7]");
});

test("V8 stack dump (%Abort, old OOM traces) frames, skipping locationless ones", () => {
  const text = [
    "==== JS stack trace =========================================",
    "",
    "    0: ExitFrame [pc: 0x195e271]",
    "    2: grow [0x3cdb92f6c851] [/srv/app/oom.js:4] [bytecode=0x3cdb92f69081 offset=2](this=0x2079 <JSGlobalProxy>#0#)",
    "    5: builtin exit frame: runInContext(this=0x1023fdea4279 <ContextifyScript map = 0x3cdb92f69121>#1#)",
    "",
    "    6: runScriptInThisContext(aka runScriptInThisContext) [0x36e4ef728d31] [node:internal/vm:209] [bytecode=0x3c offset=36](this=0x3 <undefined>)",
    "==== Details ================================================",
    "[2]: grow [0x3cdb92f6c851] [/srv/app/oom.js:4] [bytecode=0x3cdb92f69081 offset=2]",
  ].join("\n");
  const fs = parseStack(text, { rootDir: root });
  assert.deepEqual(fs.map((f) => [f.fn, f.file, f.line, f.ignored]), [
    ["grow", "oom.js", 4, null],
    ["runScriptInThisContext", "node:internal/vm", 209, "node-internal"],
  ]);
});

test("only the first block of a syntax counts: an error's [cause] frames are not its own", () => {
  const text = [
    "Error: outer",
    "    at a (/srv/app/a.js:1:1) {",
    "  [cause]: Error: inner",
    "      at b (/srv/app/b.js:1:1)",
    "}",
  ].join("\n");
  assert.deepEqual(parseStack(text, { rootDir: root }).map((f) => f.fn), ["a"]);
});

test("the pattern table is exported read-only and ids are unique", () => {
  assert.ok(Object.isFrozen(STACK_PATTERNS));
  assert.ok(STACK_PATTERNS.every((p) => Object.isFrozen(p)));
  const ids = STACK_PATTERNS.map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length);
  assert.throws(() => (STACK_PATTERNS as unknown as unknown[]).push({}), TypeError);
});
