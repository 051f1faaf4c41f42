;; Three threads each do two atomic adds on one word and return what they read.
;; `final` returns the total (always 600). The returned values identify the order.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "t0") (result i32 i32)
    (i32.atomic.rmw.add (i32.const 0) (i32.const 100))
    (i32.atomic.rmw.add (i32.const 0) (i32.const 100)))
  (func (export "t1") (result i32 i32)
    (i32.atomic.rmw.add (i32.const 0) (i32.const 100))
    (i32.atomic.rmw.add (i32.const 0) (i32.const 100)))
  (func (export "t2") (result i32 i32)
    (i32.atomic.rmw.add (i32.const 0) (i32.const 100))
    (i32.atomic.rmw.add (i32.const 0) (i32.const 100)))
  (func (export "final") (result i32) (i32.atomic.load (i32.const 0))))
