// Check-then-act on the file system, as in early mkdirp clones: "stat the
// directory; if it is missing, create it". Two callers 40 ms apart: when the
// first caller's stat or mkdir completes late, the second one also sees
// ENOENT and its mkdir fails with EEXIST.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'race-mkdir-'));
const cacheDir = path.join(root, 'cache');

function ensureDir(dir, cb) {
  fs.stat(dir, (err) => {
    if (!err) return cb(null);
    fs.mkdir(dir, cb); // the directory may have been created since the stat
  });
}

function done(err) {
  if (err) throw err;
}
ensureDir(cacheDir, done); // at start-up
setTimeout(() => ensureDir(cacheDir, done), 40); // the first request, a little later
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
