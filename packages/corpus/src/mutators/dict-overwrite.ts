// Overwrite bytes with a dictionary token, keeping the length (see dict-insert).
import type { Mutator } from "./types";

export const dictOverwrite: Mutator = {
  name: "dictOverwrite",
  mutate(input, rng, ctx) {
    const dict = ctx.dictionary;
    if (!dict || dict.length === 0) return input;
    const token = rng.pick(dict);
    if (token.length === 0 || token.length > input.length) return input;
    const out = input.slice();
    out.set(token, rng.int(input.length - token.length + 1));
    return out;
  },
};
