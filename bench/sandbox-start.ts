// What the target sandbox (packages/worker/src/sandbox.ts: own user + network
// namespace, loopback up, exec) costs, against no sandbox in the same run
// (rounds interleave the variants; medians reported):
//   start   one `node -e 0` process, bare and under the wrapper (the cost added to every target process)
//   node    the node engine's job throughput (runs/s) on a tiny program: spawned processes (warm=0,
//           one process per run: the worst case) and warm hosts (warm=1, the default for JavaScript)
//   node --import tsx bench/sandbox-start.ts [--rounds 5] [--starts 20] [--runs 30]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseJob, type JobFor, type TargetSandbox } from "@fuzzfarm/protocol";
import { nodeEngine } from "@fuzzfarm/engine-node";
import { jobSandbox, resolveSandbox } from "@fuzzfarm/worker";

const argv = process.argv.slice(2);
const value = (name: string, d: number) => (argv.indexOf(name) >= 0 ? Number(argv[argv.indexOf(name) + 1]) : d);
const rounds = value("--rounds", 5);
const starts = value("--starts", 20);
const runs = value("--runs", 30);

const net = await resolveSandbox("net");
const work = mkdtempSync(join(tmpdir(), "ff-sandbox-bench-"));
const program = join(work, "tiny.cjs");
writeFileSync(program, "setTimeout(() => {}, 1); Promise.resolve().then(() => {});\n");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function startMs(prefix: readonly string[]): number {
  const t0 = performance.now();
  for (let i = 0; i < starts; i++) {
    const [cmd, ...args] = [...prefix, process.execPath, "-e", "0"];
    const r = spawnSync(cmd!, args, { stdio: "ignore" });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status})`);
  }
  return (performance.now() - t0) / starts;
}

async function nodeRunsPerSec(warm: 0 | 1, sandboxed: boolean): Promise<number> {
  const job = parseJob({
    jobId: "b", campaignId: "b", engine: "node", target: { name: "tiny", path: program },
    options: { strategy: "mix", seedStart: 1, timeoutMs: 10_000, params: { warm, jobs: 1, coverage: 0, confirmRuns: 0 } }, budget: { runs, seconds: 120 },
  }) as JobFor<"node">;
  const workDir = mkdtempSync(join(work, "job-"));
  const sandbox: TargetSandbox | undefined = sandboxed ? jobSandbox(net, workDir) : undefined;
  const t0 = performance.now();
  const r = await nodeEngine.run(job, { signal: new AbortController().signal, workDir, sandbox });
  if (r.error) throw new Error(r.error.message);
  return (r.execs * 1000) / (performance.now() - t0);
}

const res = { startBare: [] as number[], startNet: [] as number[], spawnBare: [] as number[], spawnNet: [] as number[], warmBare: [] as number[], warmNet: [] as number[] };
for (let i = 0; i < rounds; i++) {
  res.startBare.push(startMs([]));
  res.startNet.push(startMs(net.prefix));
  res.spawnBare.push(await nodeRunsPerSec(0, false));
  res.spawnNet.push(await nodeRunsPerSec(0, true));
  res.warmBare.push(await nodeRunsPerSec(1, false));
  res.warmNet.push(await nodeRunsPerSec(1, true));
}
rmSync(work, { recursive: true, force: true });

const m = Object.fromEntries(Object.entries(res).map(([k, v]) => [k, median(v)])) as Record<keyof typeof res, number>;
const f = (x: number) => x.toFixed(1);
console.log(`sandbox: ${net.name} (${net.prefix.join(" ")}); ${rounds} rounds, medians`);
console.log(`start   node -e 0: bare ${f(m.startBare)} ms, sandboxed ${f(m.startNet)} ms: +${f(m.startNet - m.startBare)} ms per process, ratio ${(m.startNet / m.startBare).toFixed(2)}`);
console.log(`node    warm=0 (process per run): bare ${f(m.spawnBare)} runs/s, sandboxed ${f(m.spawnNet)} runs/s, ratio ${(m.spawnNet / m.spawnBare).toFixed(2)}`);
console.log(`node    warm=1 (warm hosts):      bare ${f(m.warmBare)} runs/s, sandboxed ${f(m.warmNet)} runs/s, ratio ${(m.warmNet / m.warmBare).toFixed(2)}`);
