// simple-git #252 (https://github.com/steveukx/git-js/pull/252: "If you call
// the callback too early, there isn't yet any stdout to send so simple-git
// sends an empty callback even though the git command returns some data"):
// 1.104.0 settles a git command on whichever of the child's 'exit' and
// 'close' comes first, with the stdout read so far. 'exit' can come before
// the stdout pipe's data, and the command then yields nothing. 1.105.0 waits
// up to 50 ms after an 'exit' that found no output yet. Here
// `git --version` must yield its line.
'use strict';
const { load, main, forced, tmpDir, delayChildStdout } = require('../lib/harness.cjs');

if (forced) {
  // The exposing schedule: the child's stdout reads delivered 30 ms late,
  // after its exit (within the 50 ms the fixed release waits).
  delayChildStdout(30);
}
const simpleGit = load('simple-git-252', 'simple-git');

main(async () => {
  const out = await new Promise((resolve, reject) => simpleGit(tmpDir()).raw(['--version'], (e, data) => (e ? reject(e) : resolve(data))));
  if (!/^git version/.test(String(out || ''))) throw Object.assign(new Error(`git --version yielded ${JSON.stringify(out)}: settled on 'exit' before stdout was read`), { empty: true });
}, (e) => (e && e.empty ? e.message : null));
