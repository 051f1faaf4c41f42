;; PickLoadSigns looks three levels above a local.get for a sign extension and
;; takes (i32.extend8_s (ANY (local.get $t))) as a signed use of $t, so -O2
;; turns i32.load8_u into i32.load8_s: 0x80 becomes 0xffffff80 and
;; extend8_s(0x80 >>> 4) = 8 becomes extend8_s(0x0ffffff8) = -8.
;; Expected result: 8 (Binaryen PR 7069).
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "f") (result i32) (local $t i32)
    (i32.store8 (i32.const 8) (i32.const 0x80))
    (local.set $t (i32.load8_u (i32.const 8)))
    (i32.extend8_s (i32.shr_u (local.get $t) (i32.const 4)))))
