;; 2+2W: t0: x=1; y=2   t1: y=1; x=2. final returns x,y; x=1,y=1 (|1,1) is forbidden under SC.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "t0")
    (i32.atomic.store (i32.const 0) (i32.const 1))
    (i32.atomic.store (i32.const 4) (i32.const 2)))
  (func (export "t1")
    (i32.atomic.store (i32.const 4) (i32.const 1))
    (i32.atomic.store (i32.const 0) (i32.const 2)))
  (func (export "final") (result i32 i32)
    (i32.atomic.load (i32.const 0))
    (i32.atomic.load (i32.const 4))))
