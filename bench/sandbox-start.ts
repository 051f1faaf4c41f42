// What the target sandbox (packages/worker/src/sandbox.ts) costs, at each
// level ("net": own user + network namespace, loopback up, exec; "fs":
// bubblewrap with its view built from nothing, uid 65534, seccomp, the
// status-keeping perl ends), against no sandbox and against the "fs" level
// it replaced ("fs-init": unshare + sandbox-init.pl, read from git at
// 8a62604, where this clone has that commit) in the same run (rounds
// interleave the variants; medians reported, ratios against bare):
//   start   one `node -e 0` process, bare and under each wrapper (the cost added to every target process)
//   node    the node engine's job throughput (runs/s) on a tiny program: spawned processes (warm=0,
//           one process per run: the worst case) and warm hosts (warm=1, the default for JavaScript)
//   node --import tsx bench/sandbox-start.ts [--rounds 5] [--starts 20] [--runs 30]
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
// the previous fs level, from git: unshare + perl init remounting every mount read-only, covers, own /proc
const oldInit = join(work, "sandbox-init.pl");
let hasOld = true;
try {
  writeFileSync(oldInit, execFileSync("git", ["show", "8a62604:packages/worker/src/internal/sandbox-init.pl"], { stdio: ["ignore", "pipe", "ignore"] }));
} catch {
  hasOld = false;
}
const SYS_MOUNT: Record<string, number> = { x64: 165, arm64: 40 };
function oldFsSandbox(workDir: string): TargetSandbox {
  const cwd = join(workDir, "target-cwd");
  mkdirSync(cwd, { recursive: true });
  const prefix = ["unshare", "--user", "--map-root-user", "--net", "--mount", "--pid", "perl", oldInit, String(SYS_MOUNT[process.arch]),
    "-t", "/tmp", "-t", "/dev/shm", "-w", workDir, "-r", work, "-c", cwd, "--"];
  return { name: "fs", prefix, cwd, dir: workDir };
}
const program = join(work, "tiny.cjs");
writeFileSync(program, "setTimeout(() => {}, 1); Promise.resolve().then(() => {});\n");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function sandboxOf(level: Level, workDir: string): TargetSandbox | undefined {
  if (level === "bare") return undefined;
  if (level === "fs-init") return oldFsSandbox(workDir);
  return jobSandbox(level === "net" ? net : fsLevel, workDir, { readable: [program] });
}

function startMs(level: Level): number {
  const workDir = mkdtempSync(join(work, "start-"));
  const prefix = sandboxOf(level, workDir)?.prefix ?? [];
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

async function nodeRunsPerSec(warm: 0 | 1, level: Level): Promise<number> {
  const job = nodeJob(warm);
  const workDir = mkdtempSync(join(work, "job-"));
  const sandbox = sandboxOf(level, workDir);
  const t0 = performance.now();
  const r = await nodeEngine.run(job, { signal: new AbortController().signal, workDir, sandbox });
  if (r.error) throw new Error(r.error.message);
  rmSync(workDir, { recursive: true, force: true });
  return (r.execs * 1000) / (performance.now() - t0);
}

const ALL_LEVELS = ["bare", "net", "fs-init", "fs"] as const;
type Level = (typeof ALL_LEVELS)[number];
const LEVELS = ALL_LEVELS.filter((l) => l !== "fs-init" || hasOld);
const res = { start: {} as Record<Level, number[]>, spawn: {} as Record<Level, number[]>, warm: {} as Record<Level, number[]> };
const f = (x: number) => x.toFixed(1);
for (const l of LEVELS) for (const k of Object.keys(res) as (keyof typeof res)[]) res[k][l] = [];
for (let i = 0; i < rounds; i++) {
  for (const l of LEVELS) res.start[l].push(startMs(l));
  for (const l of LEVELS) res.spawn[l].push(await nodeRunsPerSec(0, l));
  for (const l of LEVELS) res.warm[l].push(await nodeRunsPerSec(1, l));
}
rmSync(work, { recursive: true, force: true });

const m = (k: keyof typeof res, l: Level) => median(res[k][l]);
const ratio = (k: keyof typeof res, l: Level) => (m(k, l) / m(k, "bare")).toFixed(2);
console.log(`sandbox levels: net (${net.prefix.slice(0, 4).join(" ")} ...), fs (bwrap + per-job view)${hasOld ? ", fs-init (unshare + sandbox-init.pl of 8a62604)" : " (fs-init: commit 8a62604 not in this clone)"}; ${rounds} rounds, medians; load ${loadavg()[0]!.toFixed(1)}`);
console.log(`start   node -e 0: ${LEVELS.map((l) => `${l} ${f(m("start", l))} ms${l === "bare" ? "" : ` (+${f(m("start", l) - m("start", "bare"))}, ratio ${ratio("start", l)})`}`).join(", ")}${hasOld ? `; fs/fs-init ${(m("start", "fs") / m("start", "fs-init")).toFixed(2)}` : ""}`);
for (const [k, name] of [["spawn", "warm=false (process per run)"], ["warm", "warm hosts"]] as const)
  console.log(`node    ${name}: ${LEVELS.map((l) => `${l} ${f(m(k, l))} runs/s${l === "bare" ? "" : ` (ratio ${ratio(k, l)})`}`).join(", ")}`);
