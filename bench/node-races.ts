// Per example: plain node's failure rate vs the fuzzer's, per strategy, and
// the runs to the first failure. Usage:
//   node --import tsx bench/node-races.ts [--runs 100] [--only name] [--strategies shuffle,delay,...]
// Plain runs spawn `node script.js`; fuzzed runs use the warm pool (the
// farm's mode). Prints a table; writes bench/out/node-races.json.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { execute, WarmPool } from "@fuzzfarm/engine-node";

const argv = process.argv.slice(2);
const opt = (name: string, def: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1]! : def; };
const RUNS = Number(opt("runs", "100"));
const ONLY = opt("only", "");
const STRATEGIES = opt("strategies", "shuffle,delay,demux,pct,mix").split(",");
const LANES = Number(opt("lanes", "4"));
const dir = fileURLToPath(new URL("../examples/node-races/", import.meta.url));
const examples = readdirSync(dir).filter((f) => /\.m?js$/.test(f) && !f.includes(".fixed.") && f.includes(ONLY)).sort();

async function mapLimit<T, R>(xs: T[], n: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(xs.length); let i = 0;
  await Promise.all(Array.from({ length: n }, async () => { while (i < xs.length) { const k = i++; out[k] = await fn(xs[k]!); } }));
  return out;
}
const plain = (script: string) => new Promise<boolean>((resolve) => {
  const c = spawn(process.execPath, [script], { stdio: "ignore" });
  c.on("close", (code) => resolve(code !== 0));
});

const pool = new WarmPool(LANES);
const rows: Record<string, unknown>[] = [];
console.log(`runs per cell: ${RUNS}; cells: failures/runs (first failing run)`);
console.log(["example".padEnd(28), "plain".padEnd(12), ...STRATEGIES.map((s) => s.padEnd(13))].join(" "));
for (const f of examples) {
  const script = join(dir, f);
  const plainFails = await mapLimit(Array.from({ length: RUNS }), LANES, () => plain(script));
  const base = await execute({ script, args: [], strategy: "none", params: {}, seed: 0, timeoutMs: 10_000 }, pool);
  const events = base.trace?.events.length ?? 20;
  const cells: Record<string, { fails: number; first: number }> = {};
  for (const strategy of STRATEGIES) {
    const runs = await mapLimit(Array.from({ length: RUNS }, (_, i) => i + 1), LANES, (seed) =>
      execute({ script, args: [], strategy, params: { events }, seed, timeoutMs: 10_000 }, pool));
    const failing = runs.map((r) => r.outcome.kind !== "ok");
    cells[strategy] = { fails: failing.filter(Boolean).length, first: failing.indexOf(true) + 1 };
  }
  const pf = plainFails.filter(Boolean).length;
  const cell = (c: { fails: number; first: number }) => `${c.fails}/${RUNS} (${c.first || "-"})`.padEnd(13);
  console.log([f.padEnd(28), `${pf}/${RUNS} (${plainFails.indexOf(true) + 1 || "-"})`.padEnd(12), ...STRATEGIES.map((s) => cell(cells[s]!))].join(" "));
  rows.push({ example: f, plain: { fails: pf, first: plainFails.indexOf(true) + 1 }, fuzzed: cells });
}
pool.close();
mkdirSync(new URL("./out/", import.meta.url), { recursive: true });
writeFileSync(new URL("./out/node-races.json", import.meta.url), JSON.stringify({ runs: RUNS, rows }, null, 2));
