;; IRIW: two writers, two readers reading in opposite orders. Under SC the
;; readers agree on the order of the writes: `;;1,0;1,0` is forbidden.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "t0") (i32.atomic.store (i32.const 0) (i32.const 1)))
  (func (export "t1") (i32.atomic.store (i32.const 4) (i32.const 1)))
  (func (export "t2") (result i32 i32)
    (i32.atomic.load (i32.const 0))
    (i32.atomic.load (i32.const 4)))
  (func (export "t3") (result i32 i32)
    (i32.atomic.load (i32.const 4))
    (i32.atomic.load (i32.const 0))))
