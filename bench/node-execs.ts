// Executions per second on the race examples: plain `node` per run, the
// fuzzer spawning a process per run, and the fuzzer's warm mode (pre-started
// hosts running each program in a pre-booted worker thread). Same lanes
// (runs in flight) for all three, plus warm at 4x the lanes (workers are
// cheap: the farm keeps more of them in flight than processes); ratios are against plain node measured in
// the same run, and the warm mode's failures are counted to show it finds
// the same bugs. Usage: node --import tsx bench/node-execs.ts [--runs 60] [--lanes 2]
import { join } from "node:path";
import { execute, WarmPool } from "@fuzzfarm/engine-node";
import { mapLimit, plainFails, raceExamples, RACES_DIR } from "./lib/node-races";

const argv = process.argv.slice(2);
const opt = (name: string, def: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1]! : def; };
const RUNS = Number(opt("runs", "60"));
const LANES = Number(opt("lanes", "2"));
/** Warm workers are cheap: the farm runs more of them in flight than processes (default 4x lanes). */
const WARM_LANES = Number(opt("warm-lanes", String(LANES * 4)));
const dir = RACES_DIR;
const examples = raceExamples();

async function rate(fn: (seed: number) => Promise<boolean>, lanes = LANES): Promise<{ perSec: number; fails: number }> {
  const t0 = performance.now();
  const r = await mapLimit(Array.from({ length: RUNS }, (_, i) => i + 1), lanes, fn);
  return { perSec: RUNS / ((performance.now() - t0) / 1000), fails: r.filter(Boolean).length };
}

const pool = new WarmPool(WARM_LANES);
await mapLimit(Array.from({ length: WARM_LANES * 2 }), WARM_LANES, () => execute({ script: join(dir, examples[0]!), args: [], strategy: "none", params: {}, seed: 0, timeoutMs: 10_000 }, pool));
console.log(`${RUNS} runs per cell; node and fuzz spawn ${LANES} in flight, warm ${LANES} and ${WARM_LANES}; execs/s (failures)`);
console.log(["example".padEnd(28), "node".padEnd(12), "fuzz spawn".padEnd(14), `warm x${LANES}`.padEnd(14), `warm x${WARM_LANES}`.padEnd(14), "warm/node"].join(" "));
let sumNode = 0, sumWarm = 0, sumSpawn = 0, sumWarmSame = 0;
for (const f of examples) {
  const script = join(dir, f);
  const n = await rate(() => plainFails(script));
  const s = await rate(async (seed) => (await execute({ script, args: [], strategy: "mix", params: {}, seed, timeoutMs: 10_000 })).outcome.kind !== "ok");
  const warmRun = async (seed: number) => (await execute({ script, args: [], strategy: "mix", params: {}, seed, timeoutMs: 10_000 }, pool)).outcome.kind !== "ok";
  const w1 = await rate(warmRun, LANES);
  const w = await rate(warmRun, WARM_LANES);
  sumNode += n.perSec; sumSpawn += s.perSec; sumWarm += w.perSec; sumWarmSame += w1.perSec;
  const c = (x: { perSec: number; fails: number }) => `${x.perSec.toFixed(1)} (${x.fails})`;
  console.log([f.padEnd(28), c(n).padEnd(12), c(s).padEnd(14), c(w1).padEnd(14), c(w).padEnd(14), (w.perSec / n.perSec).toFixed(2) + "x"].join(" "));
}
pool.close();
const k = examples.length;
console.log(`mean execs/s: node ${(sumNode / k).toFixed(1)}, fuzz spawn ${(sumSpawn / k).toFixed(1)}, warm x${LANES} ${(sumWarmSame / k).toFixed(1)}, warm x${WARM_LANES} ${(sumWarm / k).toFixed(1)}`);
// The comparison at equal lanes comes first: it is the speed of a run. Warm at more lanes also counts how many
// programs it keeps in flight (cheap threads instead of processes), so its ratio is not a per-run speed-up.
console.log(`same lanes (${LANES} in flight): warm vs node ${(sumWarmSame / sumNode).toFixed(2)}x, warm vs fuzz spawn ${(sumWarmSame / sumSpawn).toFixed(2)}x`);
console.log(`warm x${WARM_LANES} in flight against ${LANES} for the others: vs node ${(sumWarm / sumNode).toFixed(2)}x, vs fuzz spawn ${(sumWarm / sumSpawn).toFixed(2)}x`);
