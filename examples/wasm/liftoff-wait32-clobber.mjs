// Minimal reproduction of a Liftoff miscompilation found by the wasm engine on
// Node v20.20.2 (V8 11.3): a local that lives across memory.atomic.wait32 reads
// back as 0. Run:
//   node --liftoff-only examples/wasm/liftoff-wait32-clobber.mjs   -> k = 0  (wrong)
//   node --no-liftoff   examples/wasm/liftoff-wait32-clobber.mjs   -> k = 77
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const wabt = await require("wabt")();
const wat = `(module (import "env" "memory" (memory 1 1 shared)) (import "e" "p" (func $p (param i32)))
 (func (export "g") (local $n i32) (local $k i32)
  (local.set $k (i32.const 77))
  (loop $l
   (if (i32.eqz (i32.atomic.load (i32.const 72)))
    (then
      (drop (memory.atomic.wait32 (i32.const 72) (i32.const 0) (i64.const 1000)))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (call $p (local.get $k))
      (if (i32.gt_u (local.get $n) (i32.const 1)) (then (i32.atomic.store (i32.const 72) (i32.const 1))))
      (br $l))))))`;
const m = wabt.parseWat("x.wat", wat, { threads: true });
const bytes = m.toBinary({}).buffer;
const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
const seen = [];
const { exports } = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory }, e: { p: (k) => seen.push(k) } });
exports.g();
console.log(`k = ${seen.join(", ")} (expected 77)`);
