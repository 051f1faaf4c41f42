// The worker-side destination of the thread-stream driver: a Writable that
// keeps what it receives in memory (no I/O of its own).
'use strict';
const { Writable } = require('node:stream');

module.exports = async function () {
  return new Writable({ write(chunk, enc, cb) { cb(); } });
};
