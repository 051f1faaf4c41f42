// Runs per second of generated programs, by thread count and strategy (one
// supervised child, worker pool, memory reset per run).
//   node --import tsx bench/wasm-runs.ts [--programs 6] [--runs 40]
import { emitWat, encodeWat, generate, Harness, metaFor, parseGenConfig, runSpec } from "@fuzzfarm/engine-wasm";

const arg = (k: string, d: number) => (process.argv.includes(k) ? Number(process.argv[process.argv.indexOf(k) + 1]) : d);
const programs = arg("--programs", 6);
const runs = arg("--runs", 40);
const h = new Harness();
console.log(`runs/s (${programs} programs x ${runs} runs each; threads = exact thread count of the programs)`);
console.log(["threads", "barrier", "delay", "token", "race", "pct"].map((s) => s.padStart(9)).join(""));
for (const threads of [1, 2, 4, 8]) {
  const cfg = parseGenConfig({ threads, depth: threads === 1 ? 0 : 3 });
  const row: string[] = [String(threads).padStart(9)];
  for (const strategy of ["barrier", "delay", "token", "race", "pct"]) {
    let total = 0, ms = 0, seed = 0, done = 0;
    while (done < programs) {
      const p = generate(seed++, cfg);
      if (p.threads.length !== threads) continue;
      done++;
      const prep = await h.prepare(await encodeWat(emitWat(p)), { opt: null, optimizer: { path: null, cmd: null }, fault: null, instrument: strategy !== "barrier" });
      const specs = [...Array(runs)].map((_, i) => runSpec(strategy, seed, i, p.threads.length));
      await h.execute("default", prep.bytes, metaFor(p), specs.slice(0, 2), { timeoutMs: 5000, wantLogs: false });
      const t = performance.now();
      const r = await h.execute("default", prep.bytes, metaFor(p), specs, { timeoutMs: 5000, wantLogs: false });
      ms += performance.now() - t;
      if ("results" in r) total += r.results.length;
    }
    row.push(String(Math.round((total / ms) * 1000)).padStart(9));
  }
  console.log(row.join(""));
}
await h.close();
