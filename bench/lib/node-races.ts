// Shared by the node engine benches: the race examples and small run helpers.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const RACES_DIR = fileURLToPath(new URL("../../examples/node-races/", import.meta.url));

/** The buggy race examples (fixed twins left out) whose name contains `only`. */
export const raceExamples = (only = "") => readdirSync(RACES_DIR).filter((f) => /\.m?js$/.test(f) && !f.includes(".fixed.") && f.includes(only)).sort();

/** `fn` over `xs` with at most `n` in flight, results in order. */
export async function mapLimit<T, R>(xs: T[], n: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(xs.length);
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => { while (i < xs.length) { const k = i++; out[k] = await fn(xs[k]!); } }));
  return out;
}

/** One run of plain `node script`: true when it failed (non-zero exit). */
export const plainFails = (script: string) => new Promise<boolean>((resolve) => {
  const c = spawn(process.execPath, [script], { stdio: "ignore" });
  c.on("close", (code) => resolve(code !== 0));
});
