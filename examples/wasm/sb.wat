;; Store buffering (SB) with seq_cst atomics: 0;0 is forbidden under SC.
;; t0: x = 1; r0 = y      t1: y = 1; r1 = x
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "t0") (result i32)
    (i32.atomic.store (i32.const 0) (i32.const 1))
    (i32.atomic.load (i32.const 4)))
  (func (export "t1") (result i32)
    (i32.atomic.store (i32.const 4) (i32.const 1))
    (i32.atomic.load (i32.const 0))))
