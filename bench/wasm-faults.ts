// Fault-detection table: each fault is injected into generated programs the way
// a buggy compiler would break them, and each oracle's detection rate is
// reported over the programs where the fault applies (it changed the module,
// and, for rmw-plain, two read-modify-writes of one cell race by happens-before
// while the cell can still change: see hasRacingRmw).
//   node --import tsx bench/wasm-faults.ts [--programs 40] [--runs 20] [--strategy mix] [--only FAULT:WHERE]
import { type FaultKind, type FaultSpec, generate, Harness, hasRacingRmw, loadLitmus, parseGenConfig, runLitmus } from "@fuzzfarm/engine-wasm";

const arg = (k: string, d: string) => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1]! : d);
const programs = Number(arg("--programs", "40"));
const runs = Number(arg("--runs", "20"));
const strategy = arg("--strategy", "mix");
const h = new Harness();
const cfg = parseGenConfig({});
const rows: { fault: FaultKind; where: FaultSpec["where"]; oracle: string }[] = [
  { fault: "narrow", where: "all", oracle: "schedule" },
  { fault: "rmw-plain", where: "all", oracle: "history" },
  { fault: "rmw-plain", where: "all", oracle: "schedule" },
  { fault: "drop-notify", where: "all", oracle: "hang" },
  { fault: "reorder", where: "all", oracle: "schedule" },
  { fault: "narrow", where: "optimized", oracle: "optimizer" },
  { fault: "reorder", where: "optimized", oracle: "optimizer" },
  { fault: "narrow", where: "liftoff", oracle: "tier" },
];
console.log(`fault detection: ${programs} generated programs per row, ${runs} schedules each (strategy ${strategy})`);
console.log("fault".padEnd(13) + "injected in".padEnd(13) + "oracle".padEnd(11) + "applies".padStart(8) + "detected".padStart(10) + "rate".padStart(8) + "   other oracles that fired");
const only = arg("--only", "");
for (const row of rows.filter((r) => !only || `${r.fault}:${r.where}` === only)) {
  let applies = 0, hit = 0;
  const other: Record<string, number> = {};
  for (let s = 0; s < programs; s++) {
    const p = generate(2000 + s, cfg);
    if (row.fault === "rmw-plain" && !hasRacingRmw(p)) continue;
    const r = await h.check(p, {
      runs, crossRuns: runs, strategy, stopAtFirst: false, fault: { kind: row.fault, where: row.where },
      tiers: row.where === "liftoff", optLevels: row.where === "optimized" ? ["O2"] : [], history: true,
    });
    if (!r.faultApplies) continue;
    applies++;
    if (r.findings.some((f) => f.oracle === row.oracle)) hit++;
    for (const f of r.findings) if (f.oracle !== row.oracle) other[f.oracle] = (other[f.oracle] ?? 0) + 1;
  }
  console.log(row.fault.padEnd(13) + row.where.padEnd(13) + row.oracle.padEnd(11) + String(applies).padStart(8) + String(hit).padStart(10) +
    `${applies ? ((100 * hit) / applies).toFixed(0) : "-"}%`.padStart(8) + "   " + JSON.stringify(other));
}
// litmus-sc oracle: the reorder fault on the MP litmus test.
const mp = await loadLitmus("examples/wasm/mp.wat");
let seen = 0;
const seeds = 20;
for (let seed = 0; seed < seeds; seed++) {
  const r = await runLitmus(h, mp, { runs: 50, seed, fault: "reorder" });
  if (r.forbiddenSeen?.length) seen++;
}
console.log("reorder".padEnd(13) + "mp.wat".padEnd(13) + "litmus-sc".padEnd(11) + String(seeds).padStart(8) + String(seen).padStart(10) + `${((100 * seen) / seeds).toFixed(0)}%`.padStart(8) + "   (50 runs per seed)");
await h.close();
