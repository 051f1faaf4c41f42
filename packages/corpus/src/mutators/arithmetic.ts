// Add or subtract a small amount (1..35) to a 1, 2 or 4 byte integer, either
// endianness: walks lengths, counters and checksums towards a wanted value.
import type { Mutator } from "./types";

const MAX_DELTA = 35;

export const arithmetic: Mutator = {
  name: "arithmetic",
  mutate(input, rng) {
    const widths = [1, 2, 4].filter((w) => w <= input.length);
    if (widths.length === 0) return input;
    const w = rng.pick(widths);
    const pos = rng.int(input.length - w + 1);
    const delta = rng.range(1, MAX_DELTA) * (rng.bool() ? 1 : -1);
    const out = input.slice();
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    const le = rng.bool();
    if (w === 1) out[pos] = (out[pos]! + delta) & 0xff;
    else if (w === 2) view.setUint16(pos, (view.getUint16(pos, le) + delta) & 0xffff, le);
    else view.setUint32(pos, (view.getUint32(pos, le) + delta) >>> 0, le);
    return out;
  },
};
