// lru-cache #388 (https://github.com/isaacs/node-lru-cache/issues/388, fixed
// in 11.2.2): with ignoreFetchAbort + allowStaleOnFetchAbort, a fetch() whose
// signal aborts before the fetchMethod settles must still store the fetched
// value when it arrives. For a key not yet in the cache, 11.2.1 drops it.
// Here the fetchMethod reads a file (fs.promises) and the caller aborts after
// 300 ms: under plain node the read always wins; a read answered after the
// abort loses the value.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { load, main, forced, tmpDir } = require('../lib/harness.cjs');

const { LRUCache } = load('lru-cache-388', 'lru-cache');
const file = path.join(tmpDir(), 'config.json');
const CONTENT = JSON.stringify({ feature: true });
fs.writeFileSync(file, CONTENT);

if (forced) {
  // The exposing schedule: the fs.promises.readFile result delivered 600 ms late.
  const readFile = fs.promises.readFile;
  fs.promises.readFile = async (...a) => { const v = await readFile(...a); await new Promise((r) => setTimeout(r, 600)); return v; };
}

main(async () => {
  let background = Promise.resolve();
  const cache = new LRUCache({
    max: 10, ttl: 60_000, ignoreFetchAbort: true, allowStaleOnFetchAbort: true,
    fetchMethod: (key) => (background = fs.promises.readFile(file, 'utf8')),
  });
  const ac = new AbortController();
  const deadline = setTimeout(() => ac.abort(new Error('request deadline')), 300);
  const first = await cache.fetch('config', { signal: ac.signal });
  clearTimeout(deadline);
  await background;
  await new Promise((r) => setImmediate(r));
  const stored = cache.get('config');
  if (stored !== CONTENT) {
    throw Object.assign(new Error(`value fetched after the abort was dropped (fetch returned ${first === undefined ? 'undefined' : 'the value'}, cache holds ${stored === undefined ? 'nothing' : 'another value'})`), { dropped: true });
  }
}, (e) => (e && e.dropped ? e.message : null));
