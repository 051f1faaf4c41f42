// Litmus: (1) SC-allowed outcomes found within a run budget by the default
// strategy (auto: systematic exploration with partial-order reduction, then
// guided random runs) against the other strategies and a plain runner that
// starts the threads together at a barrier (uninstrumented module), over
// several seeds; (2) runs per second on IRIW (4 threads) of the default strategy
// against a naive barrier runner (bench/lib/naive-barrier-runner.ts: N
// worker_threads started per run) and against our own pooled barrier runs, all
// measured in this one run, each including its start-up.
//   node --import tsx bench/wasm-litmus.ts [--runs 50] [--seeds 5] [--speed-runs 1000] [--naive-runs 100]
import { allowedOutcomes, Harness, loadLitmus, runLitmus } from "@fuzzfarm/engine-wasm";
import { naiveBarrierRuns } from "./lib/naive-barrier-runner";

const arg = (k: string, d: number) => (process.argv.includes(k) ? Number(process.argv[process.argv.indexOf(k) + 1]) : d);
const runs = arg("--runs", 50);
const seeds = arg("--seeds", 5);
const speedRuns = arg("--speed-runs", 1000);
const naiveRuns = arg("--naive-runs", 100);

const h = new Harness();
const files = ["sb", "mp", "lb", "2plus2w", "iriw", "sb-plain", "atomic-counter", "counter", "rmw-chain"];
const strategies = ["auto", "barrier", "race", "token", "pct", "dfs"];
console.log(`allowed outcomes found in ${runs} runs (mean over ${seeds} seeds) / runs until all allowed found (median; '-' = not within ${runs}); forbidden seen`);
console.log("test".padEnd(15) + "allowed".padStart(8) + strategies.map((s) => s.padStart(16)).join(""));
for (const f of files) {
  const m = await loadLitmus(`examples/wasm/${f}.wat`);
  let allowedN = 0;
  const cells: string[] = [];
  for (const strategy of strategies) {
    let found = 0;
    let forbidden = 0;
    const toAll: number[] = [];
    for (let seed = 0; seed < seeds; seed++) {
      const r = await runLitmus(h, m, { runs, strategy, seed });
      allowedN = r.allowed!.length;
      const seen = r.allowed!.filter((a) => a in r.outcomes);
      found += seen.length;
      forbidden += r.forbiddenSeen!.length;
      toAll.push(seen.length === allowedN ? Math.max(...seen.map((a) => r.firstSeen[a]!)) + 1 : Infinity);
    }
    toAll.sort((a, b) => a - b);
    const med = toAll[Math.floor(toAll.length / 2)]!;
    cells.push(`${(found / seeds).toFixed(1)} / ${Number.isFinite(med) ? med : "-"}${forbidden ? ` F${forbidden}` : ""}`.padStart(16));
  }
  console.log(f.padEnd(15) + String(allowedN).padStart(8) + cells.join(""));
}
await h.close();

// Speed on a 4-thread module. Each side starts from nothing: a fresh harness (child process,
// worker pool, compile) for ours, compilation and per-run workers for the naive runner.
const iriw = await loadLitmus("examples/wasm/iriw.wat");
const speed = async (strategy: string, n: number) => {
  const hs = new Harness();
  const t0 = performance.now();
  const r = await runLitmus(hs, iriw, { runs: n, strategy, seed: 1 });
  const ms = performance.now() - t0;
  await hs.close();
  const seen = r.allowed!.filter((a) => a in r.outcomes).length;
  return { runs: r.runs, ms, perSec: (r.runs / ms) * 1000, seen, allowed: r.allowed!.length, forbidden: r.forbiddenSeen!.length };
};
const allowedIriw = allowedOutcomes(iriw)!.allowed;
const naive = await naiveBarrierRuns(iriw.bytes, iriw.threads.length, iriw.meta.memory, naiveRuns);
const naivePerSec = (naive.runs / naive.ms) * 1000;
const rows = [
  { name: "naive: N worker_threads per run, barrier", runs: naive.runs, ms: naive.ms, perSec: naivePerSec, seen: Object.keys(naive.outcomes).filter((o) => allowedIriw.includes(o)).length, forbidden: Object.keys(naive.outcomes).filter((o) => !allowedIriw.includes(o)).length },
  { name: "pooled barrier (our pool, no scheduling)", ...(await speed("barrier", speedRuns)) },
  { name: "default (auto) strategy", ...(await speed("auto", speedRuns)) },
];
console.log(`\nIRIW (4 threads), runs per second including start-up, measured in this run`);
console.log("runner".padEnd(44) + "runs".padStart(7) + "ms".padStart(9) + "runs/s".padStart(9) + "  vs naive  SC outcomes seen");
for (const r of rows)
  console.log(r.name.padEnd(44) + String(r.runs).padStart(7) + r.ms.toFixed(0).padStart(9) + r.perSec.toFixed(0).padStart(9) + `${(r.perSec / naivePerSec).toFixed(1)}x`.padStart(10) + `  ${r.seen}${r.forbidden ? `, ${r.forbidden} forbidden` : ""}`);
