;; Message passing (MP): t0 writes data (plain) then sets a flag (atomic); t1
;; reads the flag then the data. Outcome `;1,0` (flag seen, stale data) is
;; forbidden: the atomic store/load pair orders the plain accesses.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "t0")
    (i32.store (i32.const 0) (i32.const 1))
    (i32.atomic.store (i32.const 4) (i32.const 1)))
  (func (export "t1") (result i32 i32)
    (i32.atomic.load (i32.const 4))
    (i32.atomic.load (i32.const 0))))
