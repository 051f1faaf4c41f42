// A worker reports results on a data port and "done" on a control port,
// 2 ms later. The main thread sums what it received when "done" arrives.
// Messages on different ports have no order: a late data message is lost.
'use strict';
const { Worker, MessageChannel } = require('node:worker_threads');

const data = new MessageChannel();
const control = new MessageChannel();
const worker = new Worker(`
  const { workerData } = require('node:worker_threads');
  const { data, control } = workerData;
  for (let i = 1; i <= 4; i++) data.postMessage(i);
  setTimeout(() => { control.postMessage('done'); data.close(); control.close(); }, 2);
`, { eval: true, workerData: { data: data.port2, control: control.port2 }, transferList: [data.port2, control.port2] });

let sum = 0;
data.port1.on('message', (n) => { sum += n; });
control.port1.on('message', () => {
  data.port1.close(); control.port1.close();
  if (sum !== 10) throw new Error(`sum of results ${sum}, expected 10: a result arrived after "done"`);
});
worker.on('error', (e) => { throw e; });
