// Add or subtract a small amount (1..35) to a 1, 2 or 4 byte integer, either
// endianness: walks lengths, counters and checksums towards a wanted value.
import { pickWidth, readUint, writeUint, type Mutator } from "./types";

const MAX_DELTA = 35;

export const arithmetic: Mutator = {
  name: "arithmetic",
  mutate(input, rng) {
    const w = pickWidth(rng, input.length);
    if (w === 0) return input;
    const pos = rng.int(input.length - w + 1);
    const delta = rng.range(1, MAX_DELTA) * (rng.bool() ? 1 : -1);
    const out = input.slice();
    const le = rng.bool();
    const modulus = 2 ** (8 * w);
    writeUint(out, pos, w, le, (readUint(out, pos, w, le) + delta + modulus) % modulus);
    return out;
  },
};
