// Shared by the engine-node tests: the example programs and a bounded-parallel map.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

export const EXAMPLES_DIR = fileURLToPath(new URL("../../../examples/node-races/", import.meta.url));
export const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

/** The buggy example programs with their fixed twins. */
export function examples(): { name: string; buggy: string; fixed: string }[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((f) => /\.(m?js)$/.test(f) && !f.includes(".fixed."))
    .sort()
    .map((f) => ({ name: f.replace(/\.m?js$/, ""), buggy: join(EXAMPLES_DIR, f), fixed: join(EXAMPLES_DIR, f.replace(/\.(m?js)$/, ".fixed.$1")) }));
}

/** Run `fn` over `items`, `limit` at a time, results in order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) { const i = next++; out[i] = await fn(items[i]!, i); }
  }));
  return out;
}
