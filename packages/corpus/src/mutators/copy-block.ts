// Overwrite a block of the input with another block of the same input; the
// length stays, so length-checked formats survive the mutation.
import { blockLen, type Mutator } from "./types";

export const copyBlock: Mutator = {
  name: "copyBlock",
  mutate(input, rng) {
    if (input.length < 2) return input;
    const n = blockLen(rng, input.length - 1);
    const from = rng.int(input.length - n + 1);
    const to = rng.int(input.length - n + 1);
    if (from === to) return input;
    const out = input.slice();
    out.set(input.subarray(from, from + n), to);
    return out;
  },
};
