// unzipper #17 (https://github.com/ZJONSSON/node-unzipper/issues/17, "Extract -
// emit finish only when all writes are done"; #56; fixed by PR #68 in 0.9.1):
// Extract pipes each entry into an fstream Writer but ends (and emits
// 'close') when the zip is parsed, not when the writers are done. A caller
// that reads the extracted file on 'close' can find it missing or short.
// The zip is downloaded over HTTP from a local server that sends the entry,
// 100 ms later the next signature (which ends the entry for the parser) and
// 150 ms after that the central directory: under plain node the entry's
// writer (lstat, mkdir, open, write, close) is done long before the parser
// ends.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const { load, main, forced, tmpDir } = require('../lib/harness.cjs');

if (forced) {
  // The exposing schedule: the file writer's open completion delivered 300 ms late.
  // (fstream goes through graceful-fs, which wraps node:fs when it loads: patch first.)
  const open = fs.open;
  // @ts-ignore
  fs.open = (...args) => { const cb = args.pop(); open(...args, (...a) => setTimeout(() => cb(...a), 300)); };
}
const unzipper = load('unzipper-17', 'unzipper');

// report/summary.txt = "total: 42\n", deflated (made with Python's zipfile).
const ZIP = Buffer.from('UEsDBBQAAAAIAOpEg13B63uADAAAAAoAAAASAAAAcmVwb3J0L3N1bW1hcnkudHh0K8kvScyxUjAx4gIAUEsBAhQDFAAAAAgA6kSDXcHre4AMAAAACgAAABIAAAAAAAAAAAAAAIABAAAAAHJlcG9ydC9zdW1tYXJ5LnR4dFBLBQYAAAAAAQABAEAAAAA8AAAAAAA=', 'base64');

// Local header (30) + name (18) + deflated data (12): the entry ends at 60.
const ENTRY_END = 60;

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/zip', 'content-length': ZIP.length });
  res.write(ZIP.subarray(0, ENTRY_END));
  // The next signature ends the entry's data; the central directory comes later.
  setTimeout(() => res.write(ZIP.subarray(ENTRY_END, ENTRY_END + 4)), 100);
  setTimeout(() => res.end(ZIP.subarray(ENTRY_END + 4)), 250);
});

main(async () => {
  const out = tmpDir();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  await new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: server.address().port, path: '/report.zip' }, (res) => {
      const ex = unzipper.Extract({ path: out });
      ex.on('error', reject);
      ex.on('close', resolve);
      res.pipe(ex);
    }).on('error', reject);
  });
  server.close();
  let text;
  try { text = fs.readFileSync(path.join(out, 'report', 'summary.txt'), 'utf8'); } catch (e) { text = `<${e.code}>`; }
  if (text !== 'total: 42\n') throw Object.assign(new Error(`'close' came before the entry was written: read ${JSON.stringify(text)}`), { early: true });
}, (e) => (e && e.early ? e.message : null));
