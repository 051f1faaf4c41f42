// Fixed twin of late-listener.js: subscribe before starting anything asynchronous.
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
  const ready = new Promise((resolve) => client.once('ready', resolve));
  fs.readFile(__filename, 'utf8', async (err, config) => {
    await ready;
    started = config.length > 0; client.sock.destroy(); server.close();
  });
});
process.on('exit', () => { if (!started) { console.error('start-up never finished: the ready event was missed'); process.exitCode = 1; } });
