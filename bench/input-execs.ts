// Input engine throughput: execs/s of a real fuzzing job (executor process,
// istanbul counters, mutation, IPC, crash checks) against a plain loop that
// calls the same fuzz() without coverage, in this process, in the same run.
//   node --import tsx bench/input-execs.ts [seconds per measurement, default 5]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { havoc } from "@fuzzfarm/corpus";
import { createRng } from "@fuzzfarm/rng";
import { parseJob } from "@fuzzfarm/protocol";
import { inputEngine } from "@fuzzfarm/engine-input";

const seconds = Number(process.argv[2] ?? 5);
const targets = ["magic-bytes.ts", "parse-record.ts"].map((n) => fileURLToPath(new URL(`../examples/input/${n}`, import.meta.url)));

/** Calls/s of fuzz() over a pool of havoc-made inputs (made before timing), catching throws. */
async function plainLoop(path: string): Promise<number> {
  const mod = (await import(path)) as { fuzz: (b: Buffer) => unknown };
  const rng = createRng(1);
  const pool: Buffer[] = [];
  let x: Uint8Array = new Uint8Array(0);
  for (let i = 0; i < 4096; i++) {
    x = havoc(x, rng, { maxLen: 64 }).data;
    pool.push(Buffer.from(x));
  }
  let calls = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  while (performance.now() < end) {
    for (let i = 0; i < pool.length; i++) {
      try {
        mod.fuzz(pool[i]!);
      } catch {
        // crashes count as executions too
      }
    }
    calls += pool.length;
  }
  return calls / ((performance.now() - t0) / 1000);
}

async function engineRun(path: string): Promise<{ rate: number; execs: number; features: number; findings: number }> {
  const job = parseJob({
    engine: "input",
    jobId: "bench",
    campaignId: "bench",
    target: { name: "bench", path },
    budget: { runs: 1_000_000_000, seconds },
    options: { maxLen: 64, dictionary: false },
  });
  if (job.engine !== "input" || job.kind !== "fuzz") throw new Error("unreachable");
  const workDir = mkdtempSync(join(tmpdir(), "ff-bench-input-"));
  try {
    const r = await inputEngine.run(job, { signal: new AbortController().signal, workDir });
    if (r.error) throw new Error(`${r.error.kind}: ${r.error.message}`);
    return { rate: r.execs / (r.busyMs / 1000), execs: r.execs, features: r.features?.length ?? 0, findings: r.findings?.length ?? 0 };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

console.log(`input engine vs plain loop, ${seconds} s each, Node ${process.version}`);
for (const path of targets) {
  const e = await engineRun(path);
  const plain = await plainLoop(path);
  const name = path.split("/").pop();
  console.log(
    `${name}: engine ${Math.round(e.rate).toLocaleString("en")} execs/s (${e.execs} execs, ${e.features} features, ${e.findings} findings)` +
      ` | plain loop ${Math.round(plain).toLocaleString("en")} calls/s | ratio ${(e.rate / plain).toFixed(4)} (1/${Math.round(plain / e.rate)})`,
  );
}
