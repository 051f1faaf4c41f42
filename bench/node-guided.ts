// Guided search vs uniform random, per target: the race examples
// (examples/node-races) and the real-bug drivers (bench/real-bugs, buggy
// release). Usage:
//   nice -n 10 node --import tsx bench/node-guided.ts [--runs 20] [--only name] [--lanes 2] [--no-real] [--no-examples]
// Per target: one observation run (no perturbation) gives the racing pairs
// (raceCandidates). Then, with the same number of runs each:
//   guided       postpone A until B, pairs picked by API-model weight with
//                race-pair novelty first (GuidePicker, what the farm does)
//   random-pair  the same postponement, the pair drawn uniformly from every
//                pair pending together (no model, no novelty: NodeRacer-naive)
//   horizon      the random horizon-scaled delays (no observation)
// A cell reads failures/runs (first failing run). Spawned processes, seeds 1..N.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execute, raceCandidates, GuidePicker, guideParams, type Execution } from "@fuzzfarm/engine-node";
import type { NodeJobStrategy } from "@fuzzfarm/protocol";
import { mapLimit, raceExamples, RACES_DIR } from "./lib/node-races";
import { installBug, realBugs } from "./real-bugs/lib/bugs";

const argv = process.argv.slice(2);
const opt = (name: string, def: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1]! : def; };
const RUNS = Number(opt("runs", "20"));
const LANES = Number(opt("lanes", "2"));
const ONLY = opt("only", "");

interface Target { name: string; script: string; args: string[]; cwd?: string }
const targets: Target[] = [];
if (!argv.includes("--no-examples")) for (const f of raceExamples(ONLY)) targets.push({ name: f, script: join(RACES_DIR, f), args: [] });
if (!argv.includes("--no-real")) {
  for (const b of realBugs(ONLY)) {
    const r = installBug(b);
    if (r.ok) targets.push({ name: b.id, script: b.driver, args: ["buggy"], cwd: b.dir });
  }
}

/** Deterministic draws in [0, 1) for the pickers (one stream per target and mode). */
const draws = (seed: number) => { let s = seed >>> 0 || 1; return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 2 ** 32; }; };

const fails = (ex: Execution) => ex.outcome.kind !== "ok";
type Cell = { fails: number; first: number; runs: number };
const cellOf = (xs: boolean[]): Cell => ({ fails: xs.filter(Boolean).length, first: xs.indexOf(true) + 1, runs: xs.length });
const show = (c: Cell) => `${c.fails}/${c.runs} (${c.first || "-"})`.padEnd(14);

const run = (t: Target, strategy: NodeJobStrategy, params: Record<string, number>, seed: number) =>
  execute({ script: t.script, args: t.args, strategy, params, seed, timeoutMs: 10_000, cwd: t.cwd });

console.log(`runs per cell: ${RUNS}; cell: failures/runs (first failing run); pairs = racing pairs of the observation run`);
console.log(["target".padEnd(30), "pairs".padEnd(6), "guided".padEnd(14), "random-pair".padEnd(14), "horizon".padEnd(14)].join(" "));
const rows: Record<string, unknown>[] = [];
for (const t of targets) {
  const base = await run(t, "none", {}, 0);
  const cands = raceCandidates(base.trace?.events ?? []);
  // guided: sequential in batches of LANES so that novelty sees earlier runs
  const seen = new Set<string>(base.features);
  const picker = new GuidePicker(cands);
  const gDraw = draws(17);
  const guided: boolean[] = [];
  for (let i = 0; i < RUNS; i += LANES) {
    const batch = Array.from({ length: Math.min(LANES, RUNS - i) }, (_, k) => {
      const c = picker.next(seen, gDraw());
      return { seed: i + k + 1, params: c ? guideParams(c) : {} };
    });
    const exs = await mapLimit(batch, LANES, (b) => run(t, "guided", b.params, b.seed));
    for (const ex of exs) { guided.push(fails(ex)); for (const f of ex.features) seen.add(f); }
  }
  const rDraw = draws(29);
  const randomPair = await mapLimit(Array.from({ length: RUNS }, (_, i) => i + 1), LANES, async (seed) => {
    const c = cands.length ? cands[Math.floor(rDraw() * cands.length)]! : null;
    return fails(await run(t, "guided", c ? guideParams(c) : {}, seed));
  });
  const horizon = await mapLimit(Array.from({ length: RUNS }, (_, i) => i + 1), LANES, async (seed) => fails(await run(t, "horizon", {}, seed)));
  const cells = { guided: cellOf(guided), randomPair: cellOf(randomPair), horizon: cellOf(horizon) };
  console.log([t.name.padEnd(30), String(cands.length).padEnd(6), show(cells.guided), show(cells.randomPair), show(cells.horizon)].join(" "));
  rows.push({ target: t.name, pairs: cands.length, ...cells });
}
const total = (k: "guided" | "randomPair" | "horizon") => rows.reduce((s, r) => s + (r[k] as Cell).fails, 0);
const found = (k: "guided" | "randomPair" | "horizon") => rows.filter((r) => (r[k] as Cell).fails > 0).length;
console.log(`failing runs: guided ${total("guided")}, random-pair ${total("randomPair")}, horizon ${total("horizon")} of ${rows.length * RUNS}; ` +
  `targets found: guided ${found("guided")}, random-pair ${found("randomPair")}, horizon ${found("horizon")} of ${rows.length}`);
mkdirSync(new URL("./out/", import.meta.url), { recursive: true });
writeFileSync(new URL("./out/node-guided.json", import.meta.url), JSON.stringify({ runs: RUNS, rows }, null, 2));
