// node-archiver PR #388 (https://github.com/archiverjs/node-archiver/pull/388,
// NodeRacer benchmark "ARC"; released in 4.0.0): files are lstat'ed by a
// stat queue (concurrency 4) and appended by a second queue; finalize waits
// until both queues are idle, but only the append queue's drain re-checks
// that. When the last stat to complete is a failed one (a missing file: a
// 'warning', nothing appended), no drain follows and finalize() never
// completes: the archive hangs. Here a missing file is added first and two
// small files after it; under plain node its lstat fails long before the
// other two files are read and deflated.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { Writable } = require('node:stream');
const { load, main, forced, tmpDir } = require('../lib/harness.cjs');

const dir = tmpDir();
const missing = path.join(dir, 'missing.txt');
if (forced) {
  // The exposing schedule: the failing lstat of the missing file answered 300 ms late.
  const lstat = fs.lstat;
  // @ts-ignore
  fs.lstat = (p, ...rest) => { const cb = rest.pop(); lstat(p, ...rest, (...a) => (p === missing ? setTimeout(() => cb(...a), 300) : cb(...a))); };
}
const archiver = load('archiver-388', 'archiver');

main(async () => {
  for (const name of ['a.txt', 'b.txt']) fs.writeFileSync(path.join(dir, name), `${name}\n`.repeat(100));
  const archive = archiver('zip');
  let bytes = 0;
  const sink = new Writable({ write(chunk, enc, cb) { bytes += chunk.length; cb(); } });
  const warnings = [];
  archive.on('warning', (e) => warnings.push(e.code));
  const done = new Promise((resolve, reject) => {
    archive.on('error', reject);
    sink.on('finish', () => resolve(true));
    setTimeout(() => resolve(false), 2000);
  });
  archive.pipe(sink);
  archive.file(missing, { name: 'missing.txt' });
  archive.file(path.join(dir, 'a.txt'), { name: 'a.txt' });
  archive.file(path.join(dir, 'b.txt'), { name: 'b.txt' });
  archive.finalize();
  if (!(await done)) {
    throw Object.assign(new Error(`finalize() never completed (${bytes} bytes out, warnings: ${warnings.join(', ') || 'none'})`), { hang: true });
  }
}, (e) => (e && e.hang ? e.message : null));
