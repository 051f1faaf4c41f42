// 'timeout' vs 'close' on a socket (the Node.fz motivating bug): the
// request helper answers from both handlers. The server answers and closes
// at 20 ms; the client's idle timeout is 60 ms. When 'close' comes late the
// timeout fires first, and the helper calls back twice.
'use strict';
const net = require('node:net');

const server = net.createServer((s) => { s.on('error', () => {}); setTimeout(() => s.end('pong'), 20); });

function request(port, cb) {
  const sock = net.connect(port, '127.0.0.1');
  let reply = '';
  sock.setTimeout(60);
  sock.on('data', (d) => { reply += d; });
  sock.on('timeout', () => { sock.destroy(); cb(new Error('timeout')); });
  sock.on('close', () => cb(null, reply));
}

let calls = 0;
server.listen(0, '127.0.0.1', () => {
  request(server.address().port, (err) => {
    if (++calls > 1) throw new Error(`callback called ${calls} times (last error: ${err && err.message})`);
    setTimeout(() => server.close(), 70);
  });
});
