// get-port #23 (https://github.com/sindresorhus/get-port/issues/23): two
// parts of one program ask get-port for the same preferred port. Part A gets
// it, then reads its config file before listening; part B asks 100 ms later.
// If A's file read is answered after B's check, both get the port and one
// listen fails with EADDRINUSE. 5.1.0 locks every port it hands out.
'use strict';
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');
const { load, main, forced, tmpDir } = require('../lib/harness.cjs');

const getPort = load('get-port-23', 'get-port');
const dir = tmpDir();
const config = path.join(dir, 'a.json');
fs.writeFileSync(config, JSON.stringify({ name: 'a' }));

if (forced) {
  // The exposing schedule: A's readFile completion delivered 250 ms late.
  const orig = fs.readFile;
  // @ts-ignore
  fs.readFile = (file, ...rest) => { const cb = rest.pop(); orig(file, ...rest, (...a) => setTimeout(() => cb(...a), 250)); };
}

/** A free port to prefer (any port another process does not hold right now). */
const preferred = () => new Promise((resolve) => {
  const s = net.createServer().listen(0, () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

const listen = (port) => new Promise((resolve, reject) => {
  const s = net.createServer();
  s.unref();
  s.once('error', reject);
  s.listen(port, () => resolve(s));
});

main(async () => {
  const want = await preferred();
  const partA = (async () => {
    const port = await getPort({ port: want });
    await new Promise((resolve, reject) => fs.readFile(config, 'utf8', (e, s) => (e ? reject(e) : resolve(s))));
    return listen(port);
  })();
  const partB = new Promise((resolve) => setTimeout(resolve, 100))
    .then(() => getPort({ port: want }))
    .then((port) => listen(port));
  const servers = await Promise.all([partA, partB]);
  for (const s of servers) s.close();
}, (e) => (e && e.code === 'EADDRINUSE' ? `both parts were handed port ${e.port}: ${e.message}` : null));
