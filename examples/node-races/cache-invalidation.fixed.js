// Fixed twin of cache-invalidation.js: a generation counter; a response that
// started before an invalidation is not cached.
'use strict';
const http = require('node:http');
const net = require('node:net');

let value = 'v1';
const subscribers = new Set();
const pubsub = net.createServer((s) => { subscribers.add(s); s.on('close', () => subscribers.delete(s)); s.write('subscribed\n'); });
const api = http.createServer((req, res) => {
  res.end(value);
  setTimeout(() => {
    value = 'v2';
    for (const s of subscribers) s.write('expire\n');
  }, 30);
});

const cache = new Map();
let generation = 0;
function fetchValue(port, cb) {
  http.get({ port, host: '127.0.0.1', agent: false }, (res) => {
    let body = '';
    res.on('data', (d) => { body += d; });
    res.on('end', () => cb(body));
  });
}

api.listen(0, '127.0.0.1', () => pubsub.listen(0, '127.0.0.1', () => {
  const sub = net.connect(pubsub.address().port, '127.0.0.1', () => {
    let pending = 2; // the response and the invalidation
    const settled = () => {
      if (--pending > 0) return;
      sub.destroy(); api.close(); pubsub.close();
      const cached = cache.get('value');
      if (cached !== undefined && cached !== value) throw new Error(`stale cache: cached ${cached}, server has ${value}`);
    };
    let started = -1;
    sub.on('data', (d) => {
      for (const line of String(d).split('\n')) {
        if (line === 'subscribed') { // subscribed: now read through the cache
          started = generation;
          fetchValue(api.address().port, (v) => { if (generation === started) cache.set('value', v); settled(); });
        } else if (line === 'expire') { generation++; cache.delete('value'); settled(); }
      }
    });
  });
}));
