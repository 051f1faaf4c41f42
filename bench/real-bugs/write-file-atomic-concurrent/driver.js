// write-file-atomic, concurrent writes to one file (fixed in 2.3.0: "If
// multiple writes are concurrently issued to the same file, the write
// operations are put into a queue and serialized in the order they were
// called"). Up to 2.1.0 each call runs its own realpath, stat, open, write,
// fsync, close, chown, chmod, rename chain; whichever chain renames last wins.
// A state file is saved with version 1, and 300 ms later (a timer) with
// version 2: if the first chain's steps are answered late, its rename lands
// after the second's and the file goes back to version 1.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { load, main, forced, tmpDir } = require('../lib/harness.cjs');

if (forced) {
  // The exposing schedule: the first write's fsync answered 600 ms late.
  // (graceful-fs wraps node:fs when the package loads, so patch before it.)
  const fsync = fs.fsync;
  let n = 0;
  // @ts-ignore
  fs.fsync = (fd, cb) => { const late = n++ === 0; fsync(fd, (...a) => (late ? setTimeout(() => cb(...a), 600) : cb(...a))); };
}
const writeFileAtomic = load('write-file-atomic-concurrent', 'write-file-atomic');

const file = path.join(tmpDir(), 'state.json');
fs.writeFileSync(file, JSON.stringify({ version: 0 }));

const save = (v) => new Promise((resolve, reject) => writeFileAtomic(file, JSON.stringify({ version: v }), (e) => (e ? reject(e) : resolve())));

main(async () => {
  const first = save(1);
  const second = new Promise((r) => setTimeout(r, 300)).then(() => save(2));
  await Promise.all([first, second]);
  const { version } = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (version !== 2) throw Object.assign(new Error(`state file holds version ${version} after saving 1 then 2`), { lost: true });
}, (e) => (e && e.lost ? e.message : null));
