// Fixed twin of socket-timeout-vs-close.js: the callback runs once, whichever event comes first.
'use strict';
const net = require('node:net');

const server = net.createServer((s) => { s.on('error', () => {}); setTimeout(() => s.end('pong'), 20); });

function request(port, cb) {
  const sock = net.connect(port, '127.0.0.1');
  let reply = '';
  let settled = false;
  const finish = (err, v) => { if (!settled) { settled = true; cb(err, v); } };
  sock.setTimeout(60);
  sock.on('data', (d) => { reply += d; });
  sock.on('timeout', () => { sock.destroy(); finish(new Error('timeout')); });
  sock.on('close', () => finish(null, reply));
}

let calls = 0;
server.listen(0, '127.0.0.1', () => {
  request(server.address().port, (err) => {
    if (++calls > 1) throw new Error(`callback called ${calls} times (last error: ${err && err.message})`);
    setTimeout(() => server.close(), 70);
  });
});
