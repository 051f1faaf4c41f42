;; Store buffering with plain (non-atomic) accesses: the same shape as sb.wat.
;; Under SC 0;0 cannot happen; with plain accesses racing it is allowed by the
;; Wasm memory model (hardware store buffers show it), so the checker flags it
;; with plainAccesses: true. Scheduled runs order the racing accesses.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "t0") (result i32)
    (i32.store (i32.const 0) (i32.const 1))
    (i32.load (i32.const 4)))
  (func (export "t1") (result i32)
    (i32.store (i32.const 4) (i32.const 1))
    (i32.load (i32.const 0))))
