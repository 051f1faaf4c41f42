// agentkeepalive #23 (https://github.com/node-modules/agentkeepalive/issues/23,
// fixed in 2.0.2: "remove socket from freeSockets on 'timeout'"): a free
// keep-alive socket whose idle timeout fires is destroyed, but 2.0.0 leaves it
// in freeSockets until its 'close' event. A request made between the
// 'timeout' and the 'close' is handed the destroyed socket and fails
// ("socket hang up" / write after destroy). Here the idle timeout is 30 ms and
// the second request comes 75 ms after the first response, 45 ms after the
// timeout (and two check phases later, so that even a late loop has run the
// close phase of the turn that ran the timeout): under plain node 'close'
// always comes first.
'use strict';
const http = require('node:http');
const net = require('node:net');
const { load, main, forced } = require('../lib/harness.cjs');

const Agent = load('agentkeepalive-23', 'agentkeepalive');

if (forced) {
  // The exposing schedule: a socket's close callback delivered 100 ms late.
  const emit = net.Socket.prototype.emit;
  net.Socket.prototype.emit = function (ev, ...args) {
    if (ev === 'close' && !this.server) { setTimeout(() => emit.call(this, ev, ...args), 100); return true; }
    return emit.call(this, ev, ...args);
  };
}

const server = http.createServer((req, res) => res.end('ok'));

const get = (agent, port) => new Promise((resolve, reject) => {
  const req = http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (d) => (body += d));
    res.on('end', () => resolve(body));
    res.on('error', reject);
  });
  req.on('error', reject);
});

main(async () => {
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  const agent = new Agent({ keepAliveTimeout: 30, timeout: 1000, maxSockets: 1 });
  agent.on('error', () => { /* 2.0.3+ re-emits socket errors here; the request reports them */ });
  await get(agent, port);
  await new Promise((r) => setTimeout(r, 75));
  // Two check phases later: even when a loaded loop ran the idle timeout and
  // this timer in one timers phase, that turn's close phase has run by now.
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  try {
    await get(agent, port);
  } catch (e) {
    throw Object.assign(new Error(`request after the idle timeout failed: ${e.code || ''} ${e.message}`), { reusedDestroyed: true });
  }
  agent.destroy();
  server.close();
}, (e) => (e && e.reusedDestroyed ? e.message : null));
