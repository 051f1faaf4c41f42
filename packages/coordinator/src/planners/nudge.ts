// Small random changes to a strategy's numeric parameters: the way the
// coordinator "mutates" a productive schedule or generator configuration.
import type { Rng } from "@fuzzfarm/rng";

/** Multiply each numeric field by a factor in [1/2, 2] with probability `p`; integers stay integers (>= 1 when they were). */
export function nudgeNumbers<T extends Record<string, unknown>>(rec: T, rng: Rng, p = 0.5): T {
  const out: Record<string, unknown> = { ...rec };
  for (const [k, v] of Object.entries(rec)) {
    if (typeof v !== "number" || !rng.bool(p)) continue;
    const f = Math.pow(2, rng.float() * 2 - 1);
    if (Number.isInteger(v)) out[k] = Math.max(v >= 1 ? 1 : 0, Math.round(v * f));
    else out[k] = Math.min(v <= 1 ? 1 : Infinity, v * f);
  }
  return out as T;
}

/** A fresh 31-bit seed. */
export const freshSeed = (rng: Rng) => rng.int(0x7fffffff);
