// Cost of the one seeded RNG (@fuzzfarm/rng) against pure-rand used directly
// (the same xoroshiro128+ stepped in place with no wrapper): draws per second
// of each method the hot paths use, in the same run, interleaved rounds.
// The baseline can win: it is the library call the wrapper makes, minus the
// wrapper. Prints the median of the rounds and the ratio wrapper / direct.
//   node --import tsx bench/rng.ts [rounds, default 7] [draws per measurement, default 2e6]
import { performance } from "node:perf_hooks";
import prand from "pure-rand";
import { createRng } from "@fuzzfarm/rng";

const rounds = Number(process.argv[2] ?? 7);
const N = Number(process.argv[3] ?? 2e6);

type Case = { name: string; wrapped: () => number; direct: () => number };

function cases(): Case[] {
  const r = createRng(1);
  const s = createRng(1, { scramble: true });
  const g1 = prand.xoroshiro128plus(1);
  const g2 = prand.xoroshiro128plus(1);
  const g3 = prand.xoroshiro128plus(1);
  const g4 = prand.xoroshiro128plus(1);
  return [
    { name: "int(256)       (mutators)", wrapped: () => r.int(256), direct: () => prand.unsafeUniformIntDistribution(0, 255, g1) },
    { name: "between(0, 99) (wasm)", wrapped: () => r.between(0, 99), direct: () => prand.unsafeUniformIntDistribution(0, 99, g2) },
    { name: "unit()         (node preload)", wrapped: () => s.unit(), direct: () => prand.unsafeUniformIntDistribution(0, 0x3fffffff, g3) / 0x40000000 },
    { name: "bool()         (mutators)", wrapped: () => (r.bool() ? 1 : 0), direct: () => ((g4.unsafeNext() >>> 0) / 4294967296 < 0.5 ? 1 : 0) },
  ];
}

function perSecond(f: () => number): number {
  let sink = 0;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) sink += f();
  const ms = performance.now() - t0;
  if (sink === -1) console.log(sink); // keeps the loop's work observable
  return (N / ms) * 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cs = cases();
const got = cs.map(() => ({ wrapped: [] as number[], direct: [] as number[] }));
for (let k = 0; k < rounds; k++)
  cs.forEach((c, i) => {
    // alternate which goes first, so warm-up and turbo do not favour one side
    if (k % 2) { got[i]!.direct.push(perSecond(c.direct)); got[i]!.wrapped.push(perSecond(c.wrapped)); }
    else { got[i]!.wrapped.push(perSecond(c.wrapped)); got[i]!.direct.push(perSecond(c.direct)); }
  });
console.log(`rng: median of ${rounds} rounds of ${N} draws, million draws/s`);
console.log(`${"method".padEnd(30)} ${"@fuzzfarm/rng".padStart(14)} ${"pure-rand".padStart(10)} ${"ratio".padStart(6)}`);
cs.forEach((c, i) => {
  const w = median(got[i]!.wrapped), d = median(got[i]!.direct);
  console.log(`${c.name.padEnd(30)} ${(w / 1e6).toFixed(1).padStart(14)} ${(d / 1e6).toFixed(1).padStart(10)} ${(w / d).toFixed(2).padStart(6)}`);
});
