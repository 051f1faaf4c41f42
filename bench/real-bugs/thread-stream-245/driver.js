// thread-stream #245 (https://github.com/pinojs/thread-stream/issues/245,
// fixed in 4.2.1): on the worker's READY message the main thread snapshots
// WRITE_INDEX and waits for READ_INDEX to equal it exactly. The worker
// advances READ_INDEX in jumps to whatever WRITE_INDEX is when it reads, so a
// write made after the snapshot but before the worker's next read makes
// READ_INDEX skip the awaited value: 'ready' is never emitted (pino then never
// unrefs the worker and the process never exits). Here the program logs a
// line at once and four more from timers due at 2, 4, 6 and 8 ms, while the
// worker boots (20+ ms): under plain node every write precedes READY, so the
// snapshot is final. 'ready' must come within 1.5 s.
'use strict';
const path = require('node:path');
const { load, main, forced } = require('../lib/harness.cjs');

const ThreadStream = load('thread-stream-245', 'thread-stream');

main(async () => {
  const stream = new ThreadStream({ filename: path.join(__dirname, 'target.js'), sync: false });
  let n = 0;
  const write = () => stream.write(`line ${n++}\n`);
  write();
  const timers = [2, 4, 6, 8].map((ms) => setTimeout(write, ms));
  if (forced) {
    // The exposing schedule: one of the write timers delivered late, right
    // after the READY message is handled (before the worker's next read).
    // Listeners run in order: thread-stream's handler has just taken the
    // snapshot when this one writes. Whether the worker has read by then is
    // up to the worker thread, so this forces most runs, not all.
    stream.worker.on('message', (m) => { if (m && m.code === 'READY') write(); });
  }
  const ready = await new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), 1500);
    stream.once('ready', () => { clearTimeout(t); resolve(true); });
  });
  for (const t of timers) clearTimeout(t);
  if (!ready) throw Object.assign(new Error(`'ready' never came (${n} lines written; READ_INDEX skipped the READY snapshot)`), { lost: true });
  await new Promise((resolve) => { stream.end(); stream.once('close', resolve); });
}, (e) => (e && e.lost ? e.message : null));
