// Self-test probe (must not fail): touches every interception point the
// engine relies on (fs.stat, a timer, an immediate, a loopback socket, a
// MessagePort, a child process, zlib, crypto, fs.promises) with a correct
// program. The self-test checks that each hook reported its events.
'use strict';
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const net = require('node:net');
const zlib = require('node:zlib');
const crypto = require('node:crypto');
const { MessageChannel } = require('node:worker_threads');
const { spawn } = require('node:child_process');

let left = 8;
const done = () => { if (--left === 0) process.exitCode = 0; };
process.exitCode = 1;
fs.stat(__filename, (err) => { if (err) throw err; done(); });
setTimeout(done, 1);
setImmediate(done);
fsp.readFile(__filename).then(done);
zlib.gzip('probe', (err) => { if (err) throw err; done(); });
crypto.randomBytes(8, (err) => { if (err) throw err; done(); });
const { port1, port2 } = new MessageChannel();
port2.once('message', () => { port2.close(); done(); });
port1.postMessage('probe');
const server = net.createServer((s) => s.end('probe'));
server.listen(0, '127.0.0.1', () => {
  const c = net.connect(server.address().port, '127.0.0.1');
  c.resume();
  c.on('close', () => {
    server.close();
    const child = spawn(process.execPath, ['-e', '0']);
    child.on('close', (code) => { if (code !== 0) throw new Error('child failed'); done(); });
  });
});
