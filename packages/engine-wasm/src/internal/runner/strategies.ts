// Seeded perturbation strategies: run i of a program under strategy S is a
// pure function of (S, seed, i), so every run can be replayed.
//   barrier  threads released together at a barrier, no yield points (baseline)
//   delay    seeded start order and start delays; yields spin or sleep at random
//   token    exactly one thread runs between yield points; the seed picks who
//   pct      PCT priorities with d-1 change points (pct:D sets d, default 3)
//   race     token passing directed at conflicting accesses (a thread is held before an
//            access until another reaches a conflicting one; the seed orders them);
//            successive race runs focus on each shared address of the module in turn
//   mix      race, token, pct, race, delay in turn
//   dfs      litmus mode only: every token schedule once, systematically (systematic.ts);
//            run i depends on the runs before it, and each run's spec is reported
//   auto     litmus mode only, the litmus default: systematic exploration with dynamic
//            partial-order reduction (one run per order of racing accesses) within part
//            of the budget, then guided random schedules (litmus/explore.ts)
import { FuzzFarmError, WASM_STRATEGIES } from "@fuzzfarm/protocol";
import { createRng } from "@fuzzfarm/rng";
import { subSeed } from "../sub-seed";
import type { RunSpec } from "./supervisor";

/** The runner strategies (defined once, in protocol: job options name them). */
export const STRATEGIES = WASM_STRATEGIES;

/** Strategies whose runs depend on the runs before them: litmus modules only. */
export const LITMUS_ONLY: readonly string[] = ["dfs", "auto"];

/** Does this strategy need the yield-point instrumentation? */
export const needsInstrumentation = (strategy: string): boolean => strategy !== "barrier";

const litmusOnly = (s: string) => `strategy '${s}' explores the schedules of a litmus module (fuzzfarm wasm litmus); generated programs take race, token, pct, delay, barrier or mix`;

/** Throws FF_ERR_CONFIG for an unknown strategy, or `dfs` / `auto` where they cannot run (generated programs). */
export function checkStrategy(s: string, litmus = false): void {
  const base = s.split(":")[0]!;
  if (!(STRATEGIES as readonly string[]).includes(base) || (s.includes(":") && !/^pct:\d+$/.test(s)))
    throw new FuzzFarmError("FF_ERR_CONFIG", `unknown strategy '${s}' (one of ${STRATEGIES.join(", ")}, pct:D)`);
  if (LITMUS_ONLY.includes(s) && !litmus) throw new FuzzFarmError("FF_ERR_CONFIG", litmusOnly(s));
}

/** The spec of run `i` for a program with `threads` threads; `steps` estimates decisions per run (PCT). */
export function runSpec(strategy: string, seed: number, i: number, threads: number, steps = 64): RunSpec {
  const s = subSeed(seed, i);
  const rng = createRng(s);
  let base = strategy.split(":")[0]!;
  const mixed = base === "mix";
  if (mixed) base = ["race", "token", "pct", "race", "delay"][i % 5]!;
  const order = rng.shuffle([...Array(threads).keys()]);
  switch (base) {
    case "barrier":
      return { mode: 0, seed: s, strategy: "barrier", barrier: true, startOrder: order };
    case "delay":
      return { mode: 0, seed: s, strategy: "delay", startOrder: order, spinPM: 150, sleepPM: 15, maxSpin: 3000, maxSleepUs: 300, startDelayUs: rng.between(0, 300) };
    case "token":
      return { mode: 1, seed: s, strategy: "token", startOrder: order };
    case "race":
      // The ordinal of this run among the race runs (two in every five of mix).
      return { mode: 3, seed: s, strategy: "race", startOrder: order, focus: mixed ? 2 * Math.floor(i / 5) + (i % 5 === 3 ? 1 : 0) : i };
    case "dfs":
    case "auto":
      throw new FuzzFarmError("FF_ERR_CONFIG", litmusOnly(base));
    case "pct": {
      const d = strategy.startsWith("pct:") ? Number(strategy.slice(4)) : 3;
      const priorities = rng.shuffle([...Array(threads).keys()].map((t) => d + t));
      const changePoints = [...Array(Math.max(0, d - 1))].map(() => rng.between(1, Math.max(1, steps)));
      return { mode: 2, seed: s, strategy: strategy.startsWith("pct") ? strategy : "pct", startOrder: order, priorities, changePoints };
    }
  }
  throw new FuzzFarmError("FF_ERR_CONFIG", `unknown strategy '${strategy}'`);
}
