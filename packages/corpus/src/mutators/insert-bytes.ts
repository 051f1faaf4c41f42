// Insert a block of random bytes, or of one repeated byte: grows the input so
// checks further into it can be reached at all.
import { blockLen, insertAt, type Mutator } from "./types";

export const insertBytes: Mutator = {
  name: "insertBytes",
  mutate(input, rng, ctx) {
    const room = ctx.maxLen - input.length;
    if (room <= 0) return input;
    const n = blockLen(rng, room);
    const block = new Uint8Array(n);
    if (rng.bool()) block.fill(rng.int(256));
    else for (let i = 0; i < n; i++) block[i] = rng.int(256);
    return insertAt(input, rng.int(input.length + 1), block, ctx.maxLen);
  },
};
