// await-spawn PR #16 (https://github.com/ralphtheninja/await-spawn/pull/16,
// released as 4.0.2): the promise resolved on the child's 'exit' event with
// the stdout collected so far. 'exit' can come before the last 'data' of the
// child's stdout pipe ("I receive unpredictable case with empty buffer"), so
// the caller gets a truncated or empty output. 4.0.2 waits for 'close'.
'use strict';
const { load, main, forced, delayChildStdout } = require('../lib/harness.cjs');

if (forced) {
  // The exposing schedule: the child's stdout reads delivered 300 ms late.
  delayChildStdout(300);
}
const spawnAsync = load('await-spawn-16', 'await-spawn');

const EXPECT = 'line\n'.repeat(200);

main(async () => {
  const out = await spawnAsync(process.execPath, ['-e', `process.stdout.write(${JSON.stringify(EXPECT)})`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const got = out.toString();
  if (got !== EXPECT) throw Object.assign(new Error(`child output truncated: got ${got.length} of ${EXPECT.length} bytes`), { truncated: true });
}, (e) => (e && e.truncated ? e.message : null));
