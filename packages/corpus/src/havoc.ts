// Havoc: stack several random mutations on one input (AFL's havoc stage).
// The stack height is 2^k for k uniform in [0, depth], so most children are
// near their parent (1-2 changes) while some jump far. Mutators that cannot
// apply (no dictionary, nothing to splice with) are skipped, not counted.
import type { Rng } from "@fuzzfarm/rng";
import { MUTATORS, insertBytes, type Mutator } from "./mutators/index";

export interface HavocOptions {
  /** Stack height is 2^k, k uniform in [0, depth]. Default 4 (1..16 mutations). */
  depth?: number;
  /** Largest output length. Default 4096. */
  maxLen?: number;
  /** Tokens for the dictionary mutators; none disables them. */
  dictionary?: readonly Uint8Array[];
  /** Other corpus entries for splicing; none disables splicing. */
  corpus?: readonly Uint8Array[];
  /** Mutators to draw from. Default: all of MUTATORS. */
  mutators?: readonly Mutator[];
}

export interface HavocResult {
  data: Uint8Array;
  /** Names of the mutations applied, in order (repeats kept). */
  applied: string[];
}

export function havoc(input: Uint8Array, rng: Rng, opts: HavocOptions = {}): HavocResult {
  const chain = havocChain(input, rng, opts);
  return chain[chain.length - 1]!;
}

/**
 * Every intermediate of one havoc stack: element j carries j+1 mutations.
 * libFuzzer executes each step of its mutation chain this way, so one
 * parent pick and one mutation buy one execution, and mutants close to the
 * parent (one change) are as common as stacks are long.
 */
export function havocChain(input: Uint8Array, rng: Rng, opts: HavocOptions = {}): HavocResult[] {
  const ctx = { maxLen: opts.maxLen ?? 4096, dictionary: opts.dictionary, corpus: opts.corpus };
  const pool = opts.mutators ?? MUTATORS;
  const stack = 1 << rng.int((opts.depth ?? 4) + 1);
  const chain: HavocResult[] = [];
  let applied: string[] = [];
  let data = input;
  // A few extra attempts so a stack of no-ops (e.g. on an empty input) still changes something.
  for (let tries = 0; chain.length < stack && tries < stack * 4; tries++) {
    const m = pool[rng.int(pool.length)]!;
    const out = m.mutate(data, rng, ctx);
    if (out === data) continue;
    data = out;
    applied = [...applied, m.name];
    chain.push({ data, applied });
  }
  if (chain.length === 0) {
    // Nothing applied (an empty input and only non-growing picks): grow it.
    const out = insertBytes.mutate(data, rng, ctx);
    chain.push({ data: out, applied: out === data ? [] : [insertBytes.name] });
  }
  return chain;
}

/** Uniform random bytes of a uniform random length in [0, maxLen]: the unguided baseline. */
export function randomInput(rng: Rng, maxLen: number): Uint8Array {
  const out = new Uint8Array(rng.int(maxLen + 1));
  for (let i = 0; i < out.length; i += 2) {
    const v = rng.int(65536);
    out[i] = v & 0xff;
    if (i + 1 < out.length) out[i + 1] = v >> 8;
  }
  return out;
}
