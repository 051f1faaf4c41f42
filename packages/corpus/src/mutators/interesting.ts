// Overwrite 1, 2 or 4 bytes with boundary values (AFL's "interesting" values):
// off-by-one and overflow checks sit exactly at these numbers.
import { pickWidth, writeUint, type Mutator } from "./types";

const I8 = [-128, -1, 0, 1, 16, 32, 64, 100, 127];
const I16 = [...I8, -32768, -129, 128, 255, 256, 512, 1000, 1024, 4096, 32767, 65535];
const I32 = [...I16, -2147483648, -100663046, -32769, 32768, 65536, 100663045, 2147483647, 4294967295];

export const interesting: Mutator = {
  name: "interesting",
  mutate(input, rng) {
    const w = pickWidth(rng, input.length);
    if (w === 0) return input;
    const pos = rng.int(input.length - w + 1);
    const value = rng.pick(w === 1 ? I8 : w === 2 ? I16 : I32);
    const out = input.slice();
    writeUint(out, pos, w, rng.bool(), value >>> 0);
    return out;
  },
};
