// Insert a dictionary token (e.g. a literal the target compares against):
// solves multi-byte comparisons in one step instead of byte by byte.
import { insertAt, type Mutator } from "./types";

export const dictInsert: Mutator = {
  name: "dictInsert",
  mutate(input, rng, ctx) {
    const dict = ctx.dictionary;
    if (!dict || dict.length === 0 || input.length >= ctx.maxLen) return input;
    const token = rng.pick(dict);
    if (token.length === 0) return input;
    return insertAt(input, rng.int(input.length + 1), token, ctx.maxLen);
  },
};
