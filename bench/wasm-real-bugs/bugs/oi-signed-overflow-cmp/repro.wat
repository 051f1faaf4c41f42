;; OptimizeInstructions folds (x + C1) <s C2 into x <s (C2 - C1) when x + C1
;; "cannot overflow", checking only unsigned overflow: (0xffffffff >>> 1) + 5
;; reaches the sign bit, so the sum is negative and the comparison true.
;; Expected result: 1 (Binaryen issue 5464, fixed by PR 5467).
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "f") (result i32)
    (i32.store (i32.const 16) (i32.const -1))
    (i32.lt_s
      (i32.add (i32.shr_u (i32.load (i32.const 16)) (i32.const 1)) (i32.const 5))
      (i32.const 11))))
