// An async/await lost update over fs/promises (ESM): a counter file is read,
// incremented and written back. Two increments start 40 ms apart; when the
// first one's read or write completes late, both read the same value.
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = await mkdtemp(join(tmpdir(), 'race-counter-'));
const file = join(dir, 'hits.json');
await writeFile(file, JSON.stringify({ hits: 0 }));

async function increment() {
  const doc = JSON.parse(await readFile(file, 'utf8'));
  doc.hits += 1;
  await writeFile(file, JSON.stringify(doc));
}

const first = increment();
await new Promise((r) => setTimeout(r, 40));
await Promise.all([first, increment()]);
const { hits } = JSON.parse(await readFile(file, 'utf8'));
await rm(dir, { recursive: true, force: true });
if (hits !== 2) throw new Error(`lost update: hits=${hits}, expected 2`);
