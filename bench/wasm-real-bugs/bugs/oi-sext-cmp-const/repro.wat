;; OptimizeInstructions rewrites (sext8(x) == C) as ((x & 255) == (C & 255)) when
;; C's upper bits are all ones, without checking C's 8-bit sign bit:
;; sext8(0x6b) = 0x6b is not 0xffffff6b, yet the rewrite compares 0x6b with 0x6b.
;; Expected result: 0 (Binaryen PR 3399).
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "f") (result i32)
    (i32.store (i32.const 16) (i32.const -25749))
    (i32.eq
      (i32.shr_s (i32.shl (i32.load (i32.const 16)) (i32.const 24)) (i32.const 24))
      (i32.const -149))))
