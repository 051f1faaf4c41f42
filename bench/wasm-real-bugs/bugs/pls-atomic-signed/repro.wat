;; PickLoadSigns makes an atomic load signed (atomic loads are unsigned only):
;; the only use of $t is a 16-bit sign extension, so -O2 turns
;; i32.atomic.load16_u into the non-existent i32.atomic.load16_s and the
;; output no longer validates. Expected result: -32639.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "f") (result i32) (local $t i32)
    (i32.store16 (i32.const 8) (i32.const 0x8081))
    (local.set $t (i32.atomic.load16_u (i32.const 8)))
    (i32.shr_s (i32.shl (local.get $t) (i32.const 16)) (i32.const 16))))
