// Fixed twin of child-exit-before-drain.js: resolve on 'close', after stdio has ended.
'use strict';
const { spawn } = require('node:child_process');

function run(code) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', code]);
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('close', (status) => resolve({ status, out }));
  });
}

run('process.stdout.write("header\\n"); setTimeout(() => { process.stdout.write("result=42\\n"); setTimeout(() => {}, 3); }, 5)')
  .then(({ out }) => {
    // one message for the bug, what was read on the line after: how much got lost varies from run to run
    if (!out.includes('result=42')) throw new Error(`truncated child output: no result line\nread: ${JSON.stringify(out)}`);
  });
