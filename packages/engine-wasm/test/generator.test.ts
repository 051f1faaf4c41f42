// The generator: deterministic, valid modules, and the evaluator's expected
// result equals a real sequential execution of the module in this process.
import { test } from "node:test";
import assert from "node:assert/strict";
import { emitWat, evaluate, generate, parseGenConfig, programShape, programFromJson, programToJson } from "../src/index";
import { expectedOf } from "../src/index";
import { encodeWat, encodeWatBinaryen } from "../src/internal/wasm-tools";
import { resultKey } from "../src/internal/gen/evaluate";
import { MAX_LOG } from "../src/internal/gen/layout";

// The repo's TypeScript lib has no WebAssembly namespace: reach it untyped.
const WebAssembly = (globalThis as any).WebAssembly;

const cfg = parseGenConfig({});

test("same seed, same program; different seeds differ", () => {
  assert.equal(emitWat(generate(42, cfg)), emitWat(generate(42, cfg)));
  assert.notEqual(emitWat(generate(42, cfg)), emitWat(generate(43, cfg)));
});

test("300 generated programs encode and validate (wabt, threads)", async () => {
  for (let s = 0; s < 300; s++) {
    const p = generate(s, cfg);
    const bytes = await encodeWat(emitWat(p));
    assert.ok(WebAssembly.validate(bytes), `seed ${s} does not validate in V8`);
    for (const log of evaluate(p).logs) assert.ok(log.length <= MAX_LOG);
  }
});

test("expected result = sequential execution of the real module (spawn runs the child inline)", async () => {
  for (let s = 0; s < 40; s++) {
    const p = generate(s, cfg);
    const mod = new WebAssembly.Module(await encodeWat(emitWat(p)));
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    const insts: any[] = [];
    for (let t = 0; t < p.threads.length; t++)
      insts.push(new WebAssembly.Instance(mod, { env: { memory }, ff: { yield() {}, spawn(c: number) { (insts[c]!.exports[`th${c}`] as () => void)(); } } }));
    (insts[0]!.exports.th0 as () => void)();
    const dv = new DataView(memory.buffer);
    const cells = p.cells.map((c, i) => dv.getBigUint64(256 + 8 * i, true) & ((1n << BigInt(c.w)) - 1n));
    assert.equal(resultKey(dv.getUint32(1024, true) | 0, dv.getBigUint64(1032, true), cells), expectedOf(p), `seed ${s}`);
  }
});

test("program JSON round trip keeps bigints and the shape", () => {
  const p = generate(5, cfg);
  const q = programFromJson(programToJson(p));
  assert.equal(emitWat(q), emitWat(p));
  assert.equal(programShape(q), programShape(p));
});

test("shared-everything flag: emitted and validated by Binaryen, rejected by Node 20's V8", async () => {
  const p = generate(3, parseGenConfig({ sharedEverything: true, preset: "small" }));
  assert.ok(p.sharedGlobals > 0);
  const bytes = await encodeWatBinaryen(emitWat(p));
  assert.ok(bytes.length > 0);
  assert.equal(WebAssembly.validate(bytes), false);
});

test("bad generator options are FF_ERR_CONFIG", () => {
  assert.throws(() => parseGenConfig({ threads: 99 }), /FF_ERR_CONFIG|must be a number/);
  assert.throws(() => parseGenConfig({ nope: 1 }), /unknown generator option/);
  assert.throws(() => parseGenConfig({ preset: "zzz" }), /unknown generator preset/);
});
