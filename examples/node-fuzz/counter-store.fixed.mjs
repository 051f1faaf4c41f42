// The fixed twin of counter-store.mjs: increments are serialized through a
// promise chain, so no order of completions can lose one.
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
  let chain = Promise.resolve();
  for (let i = 0; i < concurrent; i++) chain = chain.then(() => increment(file));
  await chain;
  const n = Number(await readFile(file, "utf8"));
  await rm(dir, { recursive: true, force: true });
  if (n !== concurrent) throw new Error(`lost update: ${concurrent} increments, counter ${n}`);
}
