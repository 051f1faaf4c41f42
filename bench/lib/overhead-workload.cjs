// @ts-check
// One throughput workload, run as a program by bench/node-overhead.ts under
// plain node and under `fuzzfarm node --strategy none`:
//   node overhead-workload.cjs fs|http|timers <seconds>
// Prints `ops <n> <seconds>`: operations completed in the timed window
// (warm-up excluded), with a fixed number of operations in flight.
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const [kind, secs] = [process.argv[2], Number(process.argv[3] || 1)];
const WARMUP_MS = 200;

/** Run `lanes` chains of `step(next)` until the window closes; resolve with ops done inside it. */
function measure(/** @type {number} */ lanes, /** @type {(next: () => void) => void} */ step) {
  return new Promise((resolve) => {
    let ops = 0, counting = false, stopped = false, live = lanes;
    const next = () => {
      if (counting) ops++;
      if (stopped) { if (--live === 0) resolve(ops); return; }
      step(next);
    };
    setTimeout(() => {
      counting = true;
      const t0 = performance.now();
      setTimeout(() => { counting = false; stopped = true; void t0; }, secs * 1000);
    }, WARMUP_MS);
    for (let i = 0; i < lanes; i++) step(next);
  });
}

async function main() {
  let ops = 0;
  if (kind === 'fs') {
    const file = path.join(os.tmpdir(), `ff-overhead-${process.pid}.txt`);
    fs.writeFileSync(file, 'x'.repeat(4096));
    ops = /** @type {number} */ (await measure(8, (next) => fs.readFile(file, (err) => { if (err) throw err; next(); })));
    fs.rmSync(file, { force: true });
  } else if (kind === 'http') {
    const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); });
    await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
    const port = /** @type {any} */ (server.address()).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    ops = /** @type {number} */ (await measure(8, (next) => {
      http.get({ host: '127.0.0.1', port, path: '/', agent }, (res) => { res.resume(); res.on('end', next); });
    }));
    agent.destroy();
    server.close();
  } else if (kind === 'timers') {
    // half the chains re-arm a 0 ms timeout, half an immediate
    let i = 0;
    ops = /** @type {number} */ (await measure(200, (next) => { if (i++ % 2) setTimeout(next, 0); else setImmediate(next); }));
  } else {
    throw new Error(`unknown workload ${kind}`);
  }
  console.log(`ops ${ops} ${secs}`);
}
main();
