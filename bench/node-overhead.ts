// Interception pass-through overhead: the same throughput workload (fs
// readFile, HTTP keep-alive round trips, timers + immediates) under plain
// `node` and under the fuzzer with `--strategy none` (every hook installed,
// nothing held), as `fuzzfarm node --strategy none` runs it (no trace asked
// for: pass-through) and, for reference, with `--trace-out` (every delivered
// callback recorded with its registration site). Back-to-back triples so all
// see the same machine load. Prints ops/s and the median ratio fuzzer / node
// per workload (target for pass-through: >= 0.9).
//
//   nice -n 10 node --import tsx bench/node-overhead.ts [--rounds 7] [--secs 1] [--only fs,http,timers]
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { execute } from "@fuzzfarm/engine-node";

const WORKLOAD = fileURLToPath(new URL("./lib/overhead-workload.cjs", import.meta.url));
const argv = process.argv.slice(2);
const opt = (name: string, def: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1]! : def; };
const PAIRS = Number(opt("rounds", "7"));
const SECS = Number(opt("secs", "1"));
const KINDS = opt("only", "fs,http,timers").split(",");

const opsOf = (stdout: string): number => {
  const m = stdout.match(/^ops (\d+) ([\d.]+)$/m);
  if (!m) throw new Error(`workload printed no result: ${stdout.slice(0, 300)}`);
  return Number(m[1]) / Number(m[2]);
};

function plain(kind: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [WORKLOAD, kind, String(SECS)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    c.stdout.on("data", (d) => { out += d; });
    c.on("close", (code) => { try { if (code !== 0) throw new Error(`plain ${kind} exited ${code}`); resolve(opsOf(out)); } catch (e) { reject(e); } });
  });
}

async function fuzzed(kind: string, record: boolean): Promise<number> {
  const ex = await execute({ script: WORKLOAD, args: [kind, String(SECS)], strategy: "none", params: {}, seed: 0, timeoutMs: 0, record });
  if (ex.outcome.kind !== "ok") throw new Error(`fuzzed ${kind}: ${ex.outcome.kind} ${ex.result.stderr.slice(0, 500)}`);
  return opsOf(ex.result.stdout);
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };

console.log(`${PAIRS} rounds of ${SECS} s per workload; each round runs plain node, fuzzfarm --strategy none, and the same recording a trace, in rotating order`);
console.log(`${"workload".padEnd(10)} ${"node ops/s".padStart(11)} ${"none ops/s".padStart(11)} ${"none/node".padStart(10)} ${"rec ops/s".padStart(10)} ${"rec/node".padStart(9)}  none/node per round`);
for (const kind of KINDS) {
  const n: number[] = [], f: number[] = [], rec: number[] = [], ratios: number[] = [], recRatios: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const sides = [() => plain(kind), () => fuzzed(kind, false), () => fuzzed(kind, true)];
    const got: number[] = [0, 0, 0];
    // rotate the order so that no side always runs first
    for (let k = 0; k < 3; k++) { const j = (i + k) % 3; got[j] = await sides[j]!(); }
    n.push(got[0]!); f.push(got[1]!); rec.push(got[2]!);
    ratios.push(got[1]! / got[0]!); recRatios.push(got[2]! / got[0]!);
  }
  console.log(`${kind.padEnd(10)} ${median(n).toFixed(0).padStart(11)} ${median(f).toFixed(0).padStart(11)} ${(median(ratios).toFixed(2) + "x").padStart(10)} ${median(rec).toFixed(0).padStart(10)} ${(median(recRatios).toFixed(2) + "x").padStart(9)}  ${ratios.map((r) => r.toFixed(2)).join(" ")}`);
}
