// thread-stream #245 (https://github.com/pinojs/thread-stream/issues/245,
// fixed in 4.2.1): on the worker's READY message the main thread snapshots
// WRITE_INDEX and waits for READ_INDEX to equal it exactly. The worker
// advances READ_INDEX in jumps to whatever WRITE_INDEX is when it reads, so a
// write made after the snapshot but before the worker's next read makes
// READ_INDEX skip the awaited value: 'ready' is never emitted (pino then never
// unrefs the worker and the process never exits). As in the issue's own
// reproduction, the program logs through the handshake: a line at once and
// one every 100 ms from an interval, until 'ready' (or 4 s: a loaded machine boots a worker slowly). Under plain
// node the worker reads right after posting READY, long before the next
// line, so the snapshot is what it reads; the bug needs the worker to lag
// right after its post while the main thread handles READY and logs again.
'use strict';
const path = require('node:path');
const { load, main, forced } = require('../lib/harness.cjs');

const ThreadStream = load('thread-stream-245', 'thread-stream');

main(async () => {
  const stream = new ThreadStream({ filename: path.join(__dirname, 'target.js'), sync: false });
  let n = 0;
  const write = () => stream.write(`line ${n++}\n`);
  write();
  const iv = setInterval(write, 100);
  if (forced) {
    // The exposing schedule: a line logged right after the READY message is
    // handled (before the worker's next read). Listeners run in order:
    // thread-stream's handler has just taken the snapshot when this one
    // writes. Whether the worker has read by then is up to the worker
    // thread, so this forces some runs, not all.
    stream.worker.on('message', (m) => { if (m && m.code === 'READY') write(); });
  }
  const ready = await new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), 4000);
    stream.once('ready', () => { clearTimeout(t); resolve(true); });
  });
  clearInterval(iv);
  if (!ready) throw Object.assign(new Error(`'ready' never came (${n} lines written; READ_INDEX skipped the READY snapshot)`), { lost: true });
  await new Promise((resolve) => { stream.end(); stream.once('close', resolve); });
}, (e) => (e && e.lost ? e.message : null));
