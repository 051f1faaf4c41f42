// Flip one bit: the smallest change, good at crossing single-bit checks and flags.
import type { Mutator } from "./types";

export const bitFlip: Mutator = {
  name: "bitFlip",
  mutate(input, rng) {
    if (input.length === 0) return input;
    const out = input.slice();
    const bit = rng.int(input.length * 8);
    out[bit >> 3] ^= 1 << (bit & 7);
    return out;
  },
};
