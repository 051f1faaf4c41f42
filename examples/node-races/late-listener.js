// A listener registered after its event fired: the client object connects
// at once and emits 'ready' when the server greets it (40 ms); the caller first loads its config
// (a file read), then subscribes. If the read completes after the connect,
// 'ready' is missed and start-up never finishes.
'use strict';
const net = require('node:net');
const fs = require('node:fs');
const { EventEmitter } = require('node:events');

const server = net.createServer((s) => setTimeout(() => s.end('hello'), 40)); // greeting after session set-up

class Client extends EventEmitter {
  constructor(port) {
    super();
    this.sock = net.connect(port, '127.0.0.1');
    this.sock.once('data', () => this.emit('ready')); // ready once the server greets
    this.sock.on('error', () => {});
  }
}

let started = false;
server.listen(0, '127.0.0.1', () => {
  const client = new Client(server.address().port);
  fs.readFile(__filename, 'utf8', (err, config) => {
    client.on('ready', () => { started = config.length > 0; client.sock.destroy(); server.close(); });
  });
  setTimeout(() => { if (!started) { client.sock.destroy(); server.close(); } }, 150);
});
process.on('exit', () => { if (!started) { console.error('start-up never finished: the ready event was missed'); process.exitCode = 1; } });
