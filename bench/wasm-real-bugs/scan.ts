// A quick offline differential, outside the farm: generated programs run
// sequentially in this process (a spawned thread runs inline, a legal schedule),
// unoptimized and optimized by one binaryen release at O1..Os, against the
// generator's expected result. It measures how often the grammar reaches a bug;
// the benchmark's verdicts come from farm campaigns (run.ts).
//   node --import tsx bench/wasm-real-bugs/scan.ts --version 120.0.0 [--from 0] [--count 200] [--generator '{"preset":"opt"}']
import { fileURLToPath } from "node:url";
import { emitWat, encodeWat, expectedOf, generate, OPT_LEVELS, optimize, parseGenConfig, type Program, resultKey } from "@fuzzfarm/engine-wasm";
import { installReleases, versionDir } from "./install";

const WA = (globalThis as any).WebAssembly;

/** Run a generated program's module sequentially; its result key. */
export function runSequential(bytes: Uint8Array, p: Program): string {
  const mod = new WA.Module(bytes);
  const memory = new WA.Memory({ initial: 1, maximum: 1, shared: true });
  const insts: any[] = [];
  for (let t = 0; t < p.threads.length; t++)
    insts.push(new WA.Instance(mod, { env: { memory }, ff: { yield() {}, spawn(c: number) { insts[c].exports[`th${c}`](); } } }));
  insts[0].exports.th0();
  const dv = new DataView(memory.buffer);
  const cells = p.cells.map((c, i) => dv.getBigUint64(256 + 8 * i, true) & ((1n << BigInt(c.w)) - 1n));
  return resultKey(dv.getUint32(1024, true) | 0, dv.getBigUint64(1032, true), cells);
}

export interface ScanHit { seed: number; level: string; kind: "wrong" | "invalid" | "crash" }

export async function scan(version: string | null, from: number, count: number, gen: Record<string, unknown>): Promise<{ hits: ScanHit[]; evalMismatch: number[] }> {
  const cfg = parseGenConfig(gen);
  const hits: ScanHit[] = [];
  const evalMismatch: number[] = [];
  for (let s = from; s < from + count; s++) {
    const p = generate(s, cfg);
    const bytes = await encodeWat(emitWat(p));
    const exp = expectedOf(p);
    if (runSequential(bytes, p) !== exp) { evalMismatch.push(s); continue; }
    if (!version) continue;
    for (const level of OPT_LEVELS) {
      try {
        if (runSequential(await optimize(bytes, level, { path: versionDir(version), cmd: null }), p) !== exp) hits.push({ seed: s, level, kind: "wrong" });
      } catch (e) {
        hits.push({ seed: s, level, kind: String(e).includes("does not validate") ? "invalid" : "crash" });
      }
    }
  }
  return { hits, evalMismatch };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (k: string, d: string): string => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1]! : d);
  const version = arg("--version", "");
  if (version) installReleases([version]);
  const t0 = performance.now();
  const count = Number(arg("--count", "200"));
  const { hits, evalMismatch } = await scan(version || null, Number(arg("--from", "0")), count, JSON.parse(arg("--generator", '{"preset":"opt"}')));
  const seeds = new Set(hits.map((h) => h.seed));
  const by = (k: string) => hits.filter((h) => h.kind === k).length;
  console.log(`${count} programs, ${((performance.now() - t0) / 1000).toFixed(1)} s: evaluator/V8 mismatches ${evalMismatch.length}; ` +
    `${version ? `binaryen ${version}: ${seeds.size} programs miscompiled (wrong ${by("wrong")}, invalid ${by("invalid")}, crash ${by("crash")} of ${count * 4} optimizations)` : ""}`);
  if (hits.length) console.log(hits.slice(0, 40).map((h) => `${h.seed}/${h.level}:${h.kind}`).join(" "));
}
