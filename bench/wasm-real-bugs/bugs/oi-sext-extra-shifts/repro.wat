;; OptimizeInstructions drops an inner sign extension under an outer
;; "almost sign extension" whose shl count (-66 = 30 mod 32) exceeds its shr_s
;; count (24): (((x << 24) >> 24) << 30) >> 24 is not ((x << 30) >> 24).
;; Expected result: -64 (Binaryen issue 3362, fixed by PR 3376).
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "f") (result i32)
    (i32.store (i32.const 16) (i32.const 65419))
    (i32.shr_s
      (i32.shl
        (i32.shr_s (i32.shl (i32.load (i32.const 16)) (i32.const 24)) (i32.const 24))
        (i32.const -66))
      (i32.const 24))))
