// Insert a copy of a block of the input elsewhere in it: repeats records,
// headers and tokens the input already has.
import { blockLen, insertAt, type Mutator } from "./types";

export const duplicateBlock: Mutator = {
  name: "duplicateBlock",
  mutate(input, rng, ctx) {
    const room = ctx.maxLen - input.length;
    if (input.length === 0 || room <= 0) return input;
    const n = blockLen(rng, Math.min(input.length, room));
    const from = rng.int(input.length - n + 1);
    return insertAt(input, rng.int(input.length + 1), input.slice(from, from + n), ctx.maxLen);
  },
};
