// What the target sandbox (packages/worker/src/sandbox.ts) costs, at both
// levels ("net": own user + network namespace, loopback up, exec; "fs": net
// plus mount + PID namespace, read-only mounts, private /tmp, covers, own
// /proc, forwarding parent), against no sandbox in the same run (rounds
// interleave the variants; medians reported, ratios against bare):
//   start   one `node -e 0` process, bare and under each wrapper (the cost added to every target process)
//   node    the node engine's job throughput (runs/s) on a tiny program: spawned processes (warm=0,
//           one process per run: the worst case) and warm hosts (warm=1, the default for JavaScript)
//   node --import tsx bench/sandbox-start.ts [--rounds 5] [--starts 20] [--runs 30]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
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
const fsLevel = await resolveSandbox("fs");
const work = mkdtempSync(join(tmpdir(), "ff-sandbox-bench-"));
const program = join(work, "tiny.cjs");
writeFileSync(program, "setTimeout(() => {}, 1); Promise.resolve().then(() => {});\n");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function startMs(level: "bare" | "net" | "fs"): number {
  const workDir = mkdtempSync(join(work, "start-"));
  const prefix = level === "bare" ? [] : jobSandbox(level === "net" ? net : fsLevel, workDir, { readable: [program] }).prefix;
  const t0 = performance.now();
  for (let i = 0; i < starts; i++) {
    const [cmd, ...args] = [...prefix, process.execPath, "-e", "0"];
    const r = spawnSync(cmd!, args, { stdio: "ignore" });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status})`);
  }
  const ms = (performance.now() - t0) / starts;
  rmSync(workDir, { recursive: true, force: true });
  return ms;
}

/** The engine switches as options of their own (current schema), else as strategy params (older one). */
function nodeJob(warm: 0 | 1) {
  const base = { jobId: "b", campaignId: "b", engine: "node", target: { name: "tiny", path: program }, budget: { runs, seconds: 120 } };
  const options = { strategy: "mix", seedStart: 1, timeoutMs: 10_000 };
  try {
    return parseJob({ ...base, options: { ...options, params: { warm, jobs: 1, coverage: 0, confirmRuns: 0 } } }) as JobFor<"node">;
  } catch {
    return parseJob({ ...base, options: { ...options, warm: warm === 1, jobs: 1, coverage: false, confirmRuns: 1 } }) as JobFor<"node">;
  }
}

async function nodeRunsPerSec(warm: 0 | 1, level: "bare" | "net" | "fs"): Promise<number> {
  const job = nodeJob(warm);
  const workDir = mkdtempSync(join(work, "job-"));
  const sandbox: TargetSandbox | undefined = level === "bare" ? undefined : jobSandbox(level === "net" ? net : fsLevel, workDir, { readable: [program] });
  const t0 = performance.now();
  const r = await nodeEngine.run(job, { signal: new AbortController().signal, workDir, sandbox });
  if (r.error) throw new Error(r.error.message);
  rmSync(workDir, { recursive: true, force: true });
  return (r.execs * 1000) / (performance.now() - t0);
}

const LEVELS = ["bare", "net", "fs"] as const;
type Level = (typeof LEVELS)[number];
const res = { start: {} as Record<Level, number[]>, spawn: {} as Record<Level, number[]>, warm: {} as Record<Level, number[]> };
for (const l of LEVELS) for (const k of Object.keys(res) as (keyof typeof res)[]) res[k][l] = [];
for (let i = 0; i < rounds; i++) {
  for (const l of LEVELS) res.start[l].push(startMs(l));
  for (const l of LEVELS) res.spawn[l].push(await nodeRunsPerSec(0, l));
  for (const l of LEVELS) res.warm[l].push(await nodeRunsPerSec(1, l));
}
rmSync(work, { recursive: true, force: true });

const f = (x: number) => x.toFixed(1);
const m = (k: keyof typeof res, l: Level) => median(res[k][l]);
console.log(`sandbox levels: net (${net.prefix.join(" ")}), fs (${fsLevel.prefix.join(" ")} + per-job mounts); ${rounds} rounds, medians; load ${loadavg()[0]!.toFixed(1)}`);
console.log(`start   node -e 0:  bare ${f(m("start", "bare"))} ms, net ${f(m("start", "net"))} ms (+${f(m("start", "net") - m("start", "bare"))}, ratio ${(m("start", "net") / m("start", "bare")).toFixed(2)}), fs ${f(m("start", "fs"))} ms (+${f(m("start", "fs") - m("start", "bare"))}, ratio ${(m("start", "fs") / m("start", "bare")).toFixed(2)}; fs/net ${(m("start", "fs") / m("start", "net")).toFixed(2)})`);
for (const [k, name] of [["spawn", "warm=false (process per run)"], ["warm", "warm hosts"]] as const)
  console.log(`node    ${name}: bare ${f(m(k, "bare"))} runs/s, net ${f(m(k, "net"))} (ratio ${(m(k, "net") / m(k, "bare")).toFixed(2)}), fs ${f(m(k, "fs"))} (ratio ${(m(k, "fs") / m(k, "bare")).toFixed(2)})`);
