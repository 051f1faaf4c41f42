;; The Liftoff wait32 reproduction (liftoff-wait32-clobber.mjs) as a litmus module:
;; one thread keeps k = 77 in a local across memory.atomic.wait32 (timing out twice)
;; and a call, then returns it. Every correct engine gives 77; Node 20's V8 11.3
;; under --liftoff-only gives 0.
;;   fuzzfarm wasm engines examples/wasm/liftoff-wait32-clobber.wat --engines node,deno,bun --tiers
(module
  (import "env" "memory" (memory 1 1 shared))
  (func $p (param i32) (i32.store (i32.const 128) (local.get 0)))
  (func (export "t0") (result i32) (local $n i32) (local $k i32)
    (local.set $k (i32.const 77))
    (loop $l
      (if (i32.eqz (i32.atomic.load (i32.const 72)))
        (then
          (drop (memory.atomic.wait32 (i32.const 72) (i32.const 0) (i64.const 1000)))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (call $p (local.get $k))
          (if (i32.gt_u (local.get $n) (i32.const 1)) (then (i32.atomic.store (i32.const 72) (i32.const 1))))
          (br $l))))
    (local.get $k)))
