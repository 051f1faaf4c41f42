;; Load buffering (LB): r0 = x; y = 1 || r1 = y; x = 1. 1;1 is forbidden under SC.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "t0") (result i32) (local $r i32)
    (local.set $r (i32.atomic.load (i32.const 0)))
    (i32.atomic.store (i32.const 4) (i32.const 1))
    (local.get $r))
  (func (export "t1") (result i32) (local $r i32)
    (local.set $r (i32.atomic.load (i32.const 4)))
    (i32.atomic.store (i32.const 0) (i32.const 1))
    (local.get $r)))
