// Fixed twin of mkdir-check-then-act.js: create first, tolerate EEXIST.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'race-mkdir-'));
const cacheDir = path.join(root, 'cache');

function ensureDir(dir, cb) {
  fs.mkdir(dir, (err) => cb(err && err.code !== 'EEXIST' ? err : null));
}

function done(err) {
  if (err) throw err;
}
ensureDir(cacheDir, done);
setTimeout(() => ensureDir(cacheDir, done), 40);
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
