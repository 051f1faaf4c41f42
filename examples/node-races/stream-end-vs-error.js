// 'end' vs 'error' on a socket stream: the client waits for 'end' with
// events.once (which listens for 'error' only while it waits), then stores
// the payload and acknowledges. The server resets connections that have not
// acknowledged within 80 ms. If the client's 'end' or its file write comes
// late, the reset's 'error' finds no listener and the process crashes.
'use strict';
const net = require('node:net');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { once } = require('node:events');

const out = path.join(os.tmpdir(), `race-payload-${process.pid}`);
const server = net.createServer((s) => {
  s.on('error', () => {});
  s.end('payload');
  const guard = setTimeout(() => s.resetAndDestroy(), 80);
  s.on('data', () => { clearTimeout(guard); s.destroy(); });
});

server.listen(0, '127.0.0.1', async () => {
  await fsp.writeFile(out, ''); // the output file exists before the download starts
  const sock = net.connect({ port: server.address().port, host: '127.0.0.1', allowHalfOpen: true });
  let body = '';
  sock.on('data', (d) => { body += d; });
  await once(sock, 'end');
  await fsp.writeFile(out, body);
  sock.end('ack');
  sock.on('close', () => { server.close(); fsp.rm(out, { force: true }); });
});
