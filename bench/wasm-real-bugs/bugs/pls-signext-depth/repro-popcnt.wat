;; The finding the campaign of binaryen 113.0.0 (the fixed release of
;; oi-signed-overflow-cmp) raised, reduced by hand: the same PickLoadSigns bug
;; (Binaryen PR 7069) with popcnt as the operation between the load and the
;; sign extension. extend16_s(popcnt(load16_u x)) is taken as a signed use of
;; the load, -O2 makes it i32.load16_s: 0xb825 becomes 0xffffb825, popcnt 7
;; becomes 23. Expected result: 7; binaryen 111.0.0, 113.0.0 and 120.0.0 at -O2
;; give 23, 99.0.0 and 121.0.0 give 7.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "f") (result i32) (local $t i32)
    (i32.store16 (i32.const 8) (i32.const 0xb825))
    (local.set $t (i32.load16_u (i32.const 8)))
    (i32.extend16_s (i32.popcnt (local.get $t)))))
