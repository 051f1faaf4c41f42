;; Non-atomic increments racing (each thread adds 1 to x 2 times with a plain
;; load/add/store); `final` returns x. Lost updates give |2 or |3; |4 means none lost.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func $inc
    (i32.store (i32.const 0) (i32.add (i32.load (i32.const 0)) (i32.const 1))))
  (func (export "t0") (call $inc) (call $inc))
  (func (export "t1") (call $inc) (call $inc))
  (func (export "final") (result i32) (i32.load (i32.const 0))))
