// A client-side cache fed by request/response, expired by an invalidation
// channel (pub/sub on a second connection). The server changes the value
// 30 ms after answering and publishes "expire". If the response reaches the
// client after the invalidation, the stale value is cached for good.
'use strict';
const http = require('node:http');
const net = require('node:net');

let value = 'v1';
const subscribers = new Set();
const pubsub = net.createServer((s) => { subscribers.add(s); s.on('close', () => subscribers.delete(s)); s.write('subscribed\n'); });
const api = http.createServer((req, res) => {
  res.end(value);
  setTimeout(() => { // an admin update lands just after this answer
    value = 'v2';
    for (const s of subscribers) s.write('expire\n');
  }, 30);
});

const cache = new Map();
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
    sub.on('data', (d) => {
      for (const line of String(d).split('\n')) {
        if (line === 'subscribed') fetchValue(api.address().port, (v) => { cache.set('value', v); settled(); }); // subscribed: now read through the cache
        else if (line === 'expire') { cache.delete('value'); settled(); }
      }
    });
  });
}));
