// Splice with another corpus entry: the head of this input up to a random
// point, then the tail of the other from a random point. Combines progress
// made separately on two seeds (one solved the header, one the body).
import type { Mutator } from "./types";

export const splice: Mutator = {
  name: "splice",
  mutate(input, rng, ctx) {
    const others = ctx.corpus;
    if (!others || others.length === 0) return input;
    const other = rng.pick(others);
    if (other === input || (other.length === 0 && input.length === 0)) return input;
    const cut = rng.int(input.length + 1);
    const from = rng.int(other.length + 1);
    const len = Math.min(ctx.maxLen, cut + other.length - from);
    const out = new Uint8Array(len);
    out.set(input.subarray(0, Math.min(cut, len)));
    if (len > cut) out.set(other.subarray(from, from + (len - cut)), cut);
    return out;
  },
};
