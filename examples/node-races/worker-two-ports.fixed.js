// Fixed twin of worker-two-ports.js: "done" carries the count; the main thread waits for all results.
'use strict';
const { Worker, MessageChannel } = require('node:worker_threads');

const data = new MessageChannel();
const control = new MessageChannel();
const worker = new Worker(`
  const { workerData } = require('node:worker_threads');
  const { data, control } = workerData;
  for (let i = 1; i <= 4; i++) data.postMessage(i);
  setTimeout(() => { control.postMessage({ count: 4 }); data.close(); control.close(); }, 2);
`, { eval: true, workerData: { data: data.port2, control: control.port2 }, transferList: [data.port2, control.port2] });

let sum = 0, received = 0, expected = -1;
const check = () => {
  if (received !== expected) return;
  data.port1.close(); control.port1.close();
  if (sum !== 10) throw new Error(`sum of results ${sum}, expected 10: a result arrived after "done"`);
};
data.port1.on('message', (n) => { sum += n; received++; check(); });
control.port1.on('message', (m) => { expected = m.count; check(); });
worker.on('error', (e) => { throw e; });
