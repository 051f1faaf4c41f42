// @ts-check
// The warm execution host: a long-lived `node` process (UV_THREADPOOL_SIZE=1)
// that runs one program at a time in a fresh worker thread, always keeping
// the next worker booted and waiting. Protocol over the IPC channel:
//   parent -> host  {id, cfg, script, args, timeoutMs}
//   host -> parent  {id, exitCode, stdout, stderr, error, killed}
// Worker isolation: own isolate, own module registry, own prototypes (the
// interceptor's hooks), own process.env copy. The trace goes to cfg.traceOut.
'use strict';
/**
 * @typedef {import('../preload-messages').WarmRequest} WarmRequest
 * @typedef {import('../preload-messages').WarmRun} WarmRun
 * @typedef {import('../preload-messages').WarmReply} WarmReply
 */
const { Worker } = require('node:worker_threads');
const path = require('node:path');

const BOOT = path.join(__dirname, 'warm-boot.cjs');
const MAX_OUT = 1 << 20;

function boot() {
  const w = new Worker(BOOT, { stdout: true, stderr: true, stdin: false, argv: [], execArgv: [] });
  /** @type {{w: Worker, stdout: string, stderr: string, error: WarmReply["error"]}} */
  const run = { w, stdout: '', stderr: '', error: null };
  w.stdout.on('data', (d) => { if (run.stdout.length < MAX_OUT) run.stdout += d; });
  w.stderr.on('data', (d) => { if (run.stderr.length < MAX_OUT) run.stderr += d; });
  w.on('error', (e) => { run.error = { message: String(e && e.message), stack: String(e && e.stack) }; });
  return run;
}

/** @param {WarmReply} m */
const reply = (m) => process.send?.(m);

let spare = boot();
process.on('message', (/** @type {WarmRequest} */ msg) => {
  const run = spare;
  spare = boot();
  let killed = false;
  const hard = setTimeout(() => { killed = true; run.w.terminate(); }, msg.timeoutMs + 3000);
  run.w.once('exit', (/** @type {number} */ code) => {
    clearTimeout(hard);
    // reply once the stdio streams have delivered what the worker wrote
    // before it exited (they end after the exit; one immediate was not
    // always enough on a loaded machine), or after 1 s at most
    let sent = false;
    const send = () => {
      if (sent) return;
      sent = true;
      clearTimeout(bound);
      reply({ id: msg.id, exitCode: code, stdout: run.stdout, stderr: run.stderr, error: run.error, killed });
    };
    const bound = setTimeout(send, 1000);
    let open = 0;
    for (const s of [run.w.stdout, run.w.stderr]) {
      if (s.readableEnded) continue;
      open++;
      s.once('end', () => { if (--open === 0) setImmediate(send); });
    }
    if (open === 0) setImmediate(send);
  });
  /** @type {WarmRun} */
  const job = { cfg: msg.cfg, script: msg.script, args: msg.args };
  run.w.postMessage(job);
});
process.on('disconnect', () => process.exit(0));
