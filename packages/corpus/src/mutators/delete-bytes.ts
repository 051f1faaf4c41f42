// Delete a block: keeps inputs short (short inputs run faster and mutate more
// precisely) and removes bytes that guard a later check.
import { blockLen, type Mutator } from "./types";

export const deleteBytes: Mutator = {
  name: "deleteBytes",
  mutate(input, rng) {
    if (input.length === 0) return input;
    const n = blockLen(rng, input.length);
    const pos = rng.int(input.length - n + 1);
    const out = new Uint8Array(input.length - n);
    out.set(input.subarray(0, pos));
    out.set(input.subarray(pos + n), pos);
    return out;
  },
};
