// Two HTTP requests doing read-modify-write on shared state with an await in
// between (an audit-log append). The second deposit arrives 40 ms after the
// first; when the first one's append completes late, one deposit is lost.
'use strict';
const http = require('node:http');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');

const log = path.join(os.tmpdir(), `race-audit-${process.pid}.log`);
const account = { balance: 0 };

const server = http.createServer(async (req, res) => {
  const amount = Number(new URL(req.url, 'http://x').searchParams.get('amount'));
  const current = account.balance;
  await fsp.appendFile(log, `deposit ${amount}\n`);
  account.balance = current + amount;
  res.end(String(account.balance));
});

function deposit(amount) {
  return new Promise((resolve, reject) => {
    http.get({ port: server.address().port, host: '127.0.0.1', path: `/?amount=${amount}`, agent: false }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', reject);
  });
}

server.listen(0, '127.0.0.1', async () => {
  await deposit(0); // a health check opens the account
  const first = deposit(10);
  await new Promise((r) => setTimeout(r, 40));
  await Promise.all([first, deposit(5)]);
  server.close();
  await fsp.rm(log, { force: true });
  if (account.balance !== 15) throw new Error(`lost update: balance ${account.balance}, expected 15`);
});
