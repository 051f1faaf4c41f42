// Litmus: allowed outcomes found vs runs, for the yield-instrumented schedulers
// (race, token, pct, and dfs, which runs every schedule once and stops) against a
// plain runner that starts the threads together at a barrier (uninstrumented
// module), measured in this one run over several seeds.
//   node --import tsx bench/wasm-litmus.ts [--runs 400] [--seeds 5]
import { Harness, loadLitmus, runLitmus } from "../packages/engine-wasm/src/index";

const arg = (k: string, d: number) => (process.argv.includes(k) ? Number(process.argv[process.argv.indexOf(k) + 1]) : d);
const runs = arg("--runs", 400);
const seeds = arg("--seeds", 5);
const h = new Harness();
const files = ["sb", "mp", "lb", "2plus2w", "iriw", "rmw-chain"];
const strategies = ["barrier", "race", "token", "pct", "dfs"];
console.log(`allowed outcomes found in ${runs} runs (mean over ${seeds} seeds) / runs until all allowed found (median; '-' = not within ${runs})`);
console.log("test".padEnd(11) + "allowed".padStart(8) + strategies.map((s) => s.padStart(16)).join(""));
for (const f of files) {
  const m = await loadLitmus(`examples/wasm/${f}.wat`);
  let allowedN = 0;
  const cells: string[] = [];
  for (const strategy of strategies) {
    let found = 0;
    const toAll: number[] = [];
    for (let seed = 0; seed < seeds; seed++) {
      const r = await runLitmus(h, m, { runs, strategy, seed });
      allowedN = r.allowed!.length;
      const seen = r.allowed!.filter((a) => a in r.outcomes);
      found += seen.length;
      toAll.push(seen.length === allowedN ? Math.max(...seen.map((a) => r.firstSeen[a]!)) + 1 : Infinity);
    }
    toAll.sort((a, b) => a - b);
    const med = toAll[Math.floor(toAll.length / 2)]!;
    cells.push(`${(found / seeds).toFixed(1)} / ${Number.isFinite(med) ? med : "-"}`.padStart(16));
  }
  console.log(f.padEnd(11) + String(allowedN).padStart(8) + cells.join(""));
}
await h.close();
