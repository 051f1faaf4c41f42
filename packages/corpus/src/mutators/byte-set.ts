// Set one byte to a random value: the move that solves `data[i] === K` checks
// one byte at a time when coverage rewards each solved byte.
import type { Mutator } from "./types";

export const byteSet: Mutator = {
  name: "byteSet",
  mutate(input, rng) {
    if (input.length === 0) return input;
    const out = input.slice();
    const i = rng.int(input.length);
    out[i] = (out[i]! + 1 + rng.int(255)) & 0xff; // never the same value
    return out;
  },
};
