// mkpath #1 (https://github.com/jonvuri/mkpath/issues/1, fixed by PR #2 in
// 1.0.0): mkpath stats each level and mkdirs the missing ones. Two calls
// that share missing parents: A creates out/x/y/a, B (started 100 ms later by
// a timer) creates out/x/y/b. If A's stat/mkdir answers are late, B's stat
// of out/x also says ENOENT, both mkdir out/x, and the loser's EEXIST reaches
// its callback. 1.0.0 treats EEXIST from mkdir as success.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { load, main, forced, tmpDir } = require('../lib/harness.cjs');

const mkpath = load('mkpath-1', 'mkpath');
const root = tmpDir();

if (forced) {
  // The exposing schedule: the answer to A's existence check of out/
  // (ENOENT) delivered 250 ms late, after B created out/x/y/b.
  const orig = fs.stat;
  const t0 = Date.now();
  // @ts-ignore
  fs.stat = (p, ...rest) => { const cb = rest.pop(); const late = Date.now() - t0 < 50 && String(p).endsWith(path.sep + 'out'); orig(p, ...rest, (...a) => (late ? setTimeout(() => cb(...a), 250) : cb(...a))); };
}

const mk = (p) => new Promise((resolve, reject) => mkpath(p, (e) => (e ? reject(e) : resolve())));

main(async () => {
  const a = mk(path.join(root, 'out', 'x', 'y', 'a'));
  const b = new Promise((r) => setTimeout(r, 100)).then(() => mk(path.join(root, 'out', 'x', 'y', 'b')));
  await Promise.all([a, b]);
  for (const leaf of ['a', 'b']) if (!fs.statSync(path.join(root, 'out', 'x', 'y', leaf)).isDirectory()) throw new Error(`${leaf} missing`);
}, (e) => (e && e.code === 'EEXIST' ? `concurrent mkpath calls both created ${e.path}: ${e.message}` : null));
