;; The binary writer drops the memarg offset of memory.atomic.wait32 / notify
;; (it wrote 0): after -O1 the wait below looks at address 4 instead of 12.
;; Word 12 holds 1, the expected value, so the wait times out at once: 2.
;; At address 4 (0) the expected value differs: 1. Expected result: 2.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "f") (result i32)
    (i32.atomic.store (i32.const 12) (i32.const 1))
    (i32.add
      (memory.atomic.wait32 offset=8 (i32.const 4) (i32.const 1) (i64.const 0))
      (memory.atomic.notify offset=8 (i32.const 4) (i32.const 1)))))
