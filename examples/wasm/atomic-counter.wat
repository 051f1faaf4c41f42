;; Atomic counter: each thread adds 1 to x twice with an atomic RMW and returns
;; the values it read; `final` returns x. No update is lost (always |4); the
;; returned values name the order of the four increments: 6 SC outcomes.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func $inc (result i32)
    (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))
  (func (export "t0") (result i32 i32) (call $inc) (call $inc))
  (func (export "t1") (result i32 i32) (call $inc) (call $inc))
  (func (export "final") (result i32) (i32.atomic.load (i32.const 0))))
