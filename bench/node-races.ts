// Per example: plain node's failure rate vs the fuzzer's, per strategy, and
// the runs to the first failure. Usage:
//   node --import tsx bench/node-races.ts [--runs 100] [--only name] [--strategies shuffle,delay,...]
// Plain runs spawn `node script.js`; fuzzed runs use the warm pool (the
// farm's mode). Prints a table; writes bench/out/node-races.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execute, WarmPool } from "@fuzzfarm/engine-node";
import { isNodeJobStrategy } from "@fuzzfarm/protocol";
import { mapLimit, plainFails, raceExamples, RACES_DIR } from "./lib/node-races";

const argv = process.argv.slice(2);
const opt = (name: string, def: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1]! : def; };
const RUNS = Number(opt("runs", "100"));
const ONLY = opt("only", "");
const STRATEGIES = opt("strategies", "shuffle,delay,demux,pct,mix").split(",").map((s) => {
  if (!isNodeJobStrategy(s)) throw new Error(`unknown strategy ${s}`);
  return s;
});
const LANES = Number(opt("lanes", "4"));
const dir = RACES_DIR;
const examples = raceExamples(ONLY);


const pool = new WarmPool(LANES);
const rows: Record<string, unknown>[] = [];
console.log(`runs per cell: ${RUNS}; cells: failures/runs (first failing run)`);
console.log(["example".padEnd(28), "plain".padEnd(12), ...STRATEGIES.map((s) => s.padEnd(13))].join(" "));
for (const f of examples) {
  const script = join(dir, f);
  const plainRuns = await mapLimit(Array.from({ length: RUNS }), LANES, () => plainFails(script));
  const base = await execute({ script, args: [], strategy: "none", params: {}, seed: 0, timeoutMs: 10_000 }, pool);
  const events = base.trace?.events.length ?? 20;
  const cells: Record<string, { fails: number; first: number }> = {};
  for (const strategy of STRATEGIES) {
    const runs = await mapLimit(Array.from({ length: RUNS }, (_, i) => i + 1), LANES, (seed) =>
      execute({ script, args: [], strategy, params: { events }, seed, timeoutMs: 10_000 }, pool));
    const failing = runs.map((r) => r.outcome.kind !== "ok");
    cells[strategy] = { fails: failing.filter(Boolean).length, first: failing.indexOf(true) + 1 };
  }
  const pf = plainRuns.filter(Boolean).length;
  const cell = (c: { fails: number; first: number }) => `${c.fails}/${RUNS} (${c.first || "-"})`.padEnd(13);
  console.log([f.padEnd(28), `${pf}/${RUNS} (${plainRuns.indexOf(true) + 1 || "-"})`.padEnd(12), ...STRATEGIES.map((s) => cell(cells[s]!))].join(" "));
  rows.push({ example: f, plain: { fails: pf, first: plainRuns.indexOf(true) + 1 }, fuzzed: cells });
}
pool.close();
mkdirSync(new URL("./out/", import.meta.url), { recursive: true });
writeFileSync(new URL("./out/node-races.json", import.meta.url), JSON.stringify({ runs: RUNS, rows }, null, 2));
