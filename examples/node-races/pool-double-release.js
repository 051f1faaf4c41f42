// A connection pool whose query helper has a 40 ms deadline. The deadline
// handler releases the connection; the late reply's handler releases it
// again. Two later clients then get the same connection.
'use strict';
const net = require('node:net');

const server = net.createServer((s) => s.on('data', (d) => s.write(`ok:${d}`)));

class Pool {
  constructor(conns) { this.free = [...conns]; }
  acquire() {
    const c = this.free.pop();
    if (!c) throw new Error('pool exhausted');
    if (this.free.includes(c)) throw new Error('connection handed out twice: it was released twice');
    return c;
  }
  release(c) { this.free.push(c); }
}

function query(pool, text, cb) {
  const conn = pool.acquire();
  const deadline = setTimeout(() => { pool.release(conn); cb(new Error('query timeout')); }, 40);
  conn.once('data', (d) => { clearTimeout(deadline); pool.release(conn); cb(null, String(d)); });
  conn.write(text);
}

server.listen(0, '127.0.0.1', () => {
  const conns = [0, 1].map(() => net.connect(server.address().port, '127.0.0.1'));
  let connected = 0;
  for (const c of conns) c.on('connect', () => { if (++connected === 2) run(new Pool(conns)); });
});

function run(pool) {
  query(pool, 'q1', () => {
    setTimeout(() => { // later traffic: two clients at once
      const a = pool.acquire();
      const b = pool.acquire();
      pool.release(a); pool.release(b);
      for (const c of [a, b]) c.destroy();
      server.close();
    }, 50);
  });
}
