// The shape every mutator has. Mutators are pure: they never write to their
// input and return a new array, or the input itself (same reference) when
// they cannot apply (e.g. flipping a bit of an empty input), so havoc can
// tell a no-op from a mutation without comparing bytes.
import type { Rng } from "@fuzzfarm/rng";

export interface MutationContext {
  /** Largest output length; growing mutators stop at it. */
  maxLen: number;
  /** Tokens for dictionary mutators (literals of the target, user tokens). */
  dictionary?: readonly Uint8Array[];
  /** Other corpus entries, for splicing. */
  corpus?: readonly Uint8Array[];
}

export interface Mutator {
  /** Stable name, used in strategy records and per-mutator yield statistics. */
  readonly name: string;
  mutate(input: Uint8Array, rng: Rng, ctx: MutationContext): Uint8Array;
}

/** Copy of `input` with `bytes` inserted at `pos`, truncated to `maxLen`. */
export function insertAt(input: Uint8Array, pos: number, bytes: Uint8Array, maxLen: number): Uint8Array {
  const len = Math.min(maxLen, input.length + bytes.length);
  const out = new Uint8Array(len);
  out.set(input.subarray(0, Math.min(pos, len)));
  if (pos < len) out.set(bytes.subarray(0, len - pos), pos);
  const tail = pos + bytes.length;
  if (tail < len) out.set(input.subarray(pos, pos + (len - tail)), tail);
  return out;
}

/** A length for a block in [1, max], biased towards short blocks as AFL does. */
export function blockLen(rng: Rng, max: number): number {
  if (max <= 1) return 1;
  const cap = rng.int(4) === 0 ? max : Math.min(max, 4 << rng.int(4));
  return rng.range(1, cap);
}

/** A random integer width (1, 2 or 4 bytes) that fits in `len` bytes; 0 if none does. */
export function pickWidth(rng: Rng, len: number): number {
  if (len <= 0) return 0;
  return 1 << rng.int(len >= 4 ? 3 : len >= 2 ? 2 : 1);
}

/** Read an unsigned integer of `w` bytes at `pos`, little or big endian. */
export function readUint(b: Uint8Array, pos: number, w: number, le: boolean): number {
  let v = 0;
  for (let i = 0; i < w; i++) v = v * 256 + b[le ? pos + w - 1 - i : pos + i]!;
  return v;
}

/** Write the low `w` bytes of `v` at `pos`, little or big endian. */
export function writeUint(b: Uint8Array, pos: number, w: number, le: boolean, v: number): void {
  for (let i = 0; i < w; i++) {
    b[le ? pos + i : pos + w - 1 - i] = v & 0xff;
    v = Math.floor(v / 256);
  }
}
