// The naive litmus runner the wasm-litmus bench measures against: one process,
// N worker_threads started for every run, released together at a barrier, on
// the same uninstrumented module and a fresh shared memory per run. Written to
// be as fast as that design allows: the module is compiled once and shared with
// the workers (structured clone of a WebAssembly.Module), all workers start in
// parallel, results come back through a SharedArrayBuffer (no per-result
// messages), workers carry no TS loader (execArgv: []), and the barrier sleeps instead of spinning (more threads than cores here).
import { Worker } from "node:worker_threads";

// The repo's TypeScript lib has no WebAssembly namespace: reach it untyped.
const WA = (globalThis as any).WebAssembly;

const WORKER = `
const { workerData } = require("node:worker_threads");
const { module, memory, ctl, index, n } = workerData;
const c = new Int32Array(ctl);
const inst = new WebAssembly.Instance(module, { env: { memory } });
const f = inst.exports["t" + index];
// Barrier: the last worker to arrive wakes the others (spinning would starve
// workers still starting up when there are more threads than cores).
if (Atomics.add(c, 0, 1) + 1 === n) Atomics.notify(c, 0);
else for (let v; (v = Atomics.load(c, 0)) < n; ) Atomics.wait(c, 0, v);
const r = f();
const vals = r === undefined ? [] : Array.isArray(r) ? r : [r];
const base = 4 + index * 16;
c[base] = vals.length;
for (let i = 0; i < vals.length; i++) c[base + 1 + i] = Number(vals[i]) | 0;
Atomics.add(c, 1, 1);
Atomics.notify(c, 1);
`;

export interface NaiveResult {
  runs: number;
  ms: number;
  outcomes: Record<string, number>;
}

/** Run a litmus module (`t0..tN-1`, optional `final`) `runs` times; `ms` includes compiling it. */
export async function naiveBarrierRuns(bytes: Uint8Array, threads: number, memoryPages: { initial: number; maximum: number }, runs: number): Promise<NaiveResult> {
  const t0 = performance.now();
  const module = await WA.compile(bytes);
  const outcomes: Record<string, number> = {};
  for (let r = 0; r < runs; r++) {
    const memory = new WA.Memory({ ...memoryPages, shared: true });
    const ctl = new SharedArrayBuffer(4 * (4 + 16 * threads));
    const c = new Int32Array(ctl);
    const workers = [...Array(threads).keys()].map((index) => new Worker(WORKER, { eval: true, execArgv: [], workerData: { module, memory, ctl, index, n: threads } }));
    let errored: Error | null = null;
    for (const w of workers) w.on("error", (e) => (errored = e));
    while (Atomics.load(c, 1) < threads && !errored) {
      const v = Atomics.load(c, 1);
      const w = (Atomics as any).waitAsync(c, 1, v, 50);
      if (w.async) await w.value;
    }
    if (errored) throw errored;
    const th: string[] = [];
    for (let t = 0; t < threads; t++) th.push(Array.from(c.subarray(4 + t * 16 + 1, 4 + t * 16 + 1 + c[4 + t * 16]!)).join(","));
    let oc = th.join(";");
    const fin = new WA.Instance(module, { env: { memory } }).exports.final;
    if (fin) {
      const res = fin();
      const vals = res === undefined ? [] : Array.isArray(res) ? res : [res];
      oc += "|" + vals.map((v: unknown) => Number(v) | 0).join(",");
    }
    outcomes[oc] = (outcomes[oc] ?? 0) + 1;
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return { runs, ms: performance.now() - t0, outcomes };
}
