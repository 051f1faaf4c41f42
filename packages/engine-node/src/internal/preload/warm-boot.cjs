// @ts-check
// A pre-started worker thread of the warm host: Node's start-up cost is paid
// before the run is known. On the first message ({cfg, script, args}) it
// installs the interceptor, makes the script the main module and runs it.
'use strict';
const { parentPort } = require('node:worker_threads');

const port = parentPort;
if (port) {
  port.once('message', (/** @type {import('../preload-messages').WarmRun} */ msg) => {
    port.unref();
    process.argv = [process.argv[0] || process.execPath, msg.script, ...msg.args];
    require('./index.cjs').start(msg.cfg);
    require('node:module').runMain(msg.script);
  });
}
