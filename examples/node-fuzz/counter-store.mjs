// A `fuzz(data)` target whose bug needs both an input and an event order:
// the input is a little command log; "inc" commands whose byte is odd run
// concurrently, each doing read-modify-write on a counter file through
// fs/promises. Two concurrent increments lose an update only when one's
// readFile completes between the other's read and write: plain `node` (and
// an input fuzzer alone) essentially never sees it; the node engine, which
// mutates the input while it delays and reorders fs completions, does.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

async function increment(file) {
  const n = Number(await readFile(file, "utf8"));
  await writeFile(file, String(n + 1));
}

export async function fuzz(data) {
  const concurrent = [...data.subarray(0, 4)].filter((b) => b % 2 === 1).length;
  if (concurrent < 2) return;
  const dir = await mkdtemp(join(tmpdir(), "counter-"));
  const file = join(dir, "count");
  await writeFile(file, "0");
  await Promise.all(Array.from({ length: concurrent }, () => increment(file)));
  const n = Number(await readFile(file, "utf8"));
  await rm(dir, { recursive: true, force: true });
  if (n !== concurrent) throw new Error(`lost update: ${concurrent} increments, counter ${n}`);
}
