// @ts-check
// What keeps the loop alive: printed when a run hangs (--timeout) so the
// user sees which handle or timer never finished, with its site.
'use strict';
const { S, resInfo } = require('./scheduler.cjs');
const { liveTimers } = require('./hooks.cjs');

/** @returns {string[]} one line per pending handle, timer, request or held event */
function describePending() {
  const out = [];
  for (const q of S.queues.values()) for (const ev of q) out.push(`held by the fuzzer: ${ev.kind} from ${ev.site}`);
  for (const t of liveTimers) {
    if (t._destroyed) continue;
    const site = resInfo(t).site;
    out.push(`${t._repeat ? 'interval' : 'timer'} ${t._idleTimeout} ms set at ${site}${t.hasRef() ? '' : ' (unref)'}`);
  }
  /**
   * Node's own lists of what keeps the loop alive (undocumented, read for this report only).
   * @typedef {{ constructor?: { name?: string }, _handle?: object, remoteAddress?: string, remotePort?: number, destroyed?: boolean,
   *   address?: () => { port?: number } | string | null, pid?: number, spawnfile?: string }} ActiveHandle
   */
  const proc = /** @type {NodeJS.Process & { _getActiveHandles(): ActiveHandle[], _getActiveRequests(): ({ constructor?: { name?: string } } | null)[] }} */ (process);
  for (const h of proc._getActiveHandles()) {
    if (h === process.stdout || h === process.stderr || h === process.stdin) continue;
    const name = (h && h.constructor && h.constructor.name) || typeof h;
    if (name === 'Timeout' || name === 'Immediate') continue;
    const site = h && h._handle ? resInfo(h._handle).site : '';
    let what = name;
    if (name === 'Socket') what = `socket ${h.remoteAddress ?? ''}:${h.remotePort ?? ''}${h.destroyed ? ' (destroyed)' : ''}`;
    else if (name === 'Server') { const a = h.address && h.address(); what = `server listening on ${a && typeof a === 'object' ? a.port : a}`; }
    else if (name === 'ChildProcess') what = `child process ${h.pid} (${h.spawnfile})`;
    out.push(site && site !== 'internal' ? `${what} created at ${site}` : what);
  }
  for (const r of proc._getActiveRequests()) out.push(`request ${(r && r.constructor && r.constructor.name) || typeof r}`);
  const info = process.getActiveResourcesInfo().filter((x) => x !== 'Timeout' && x !== 'Immediate' && x !== 'TTYWrap');
  if (info.length) out.push(`active resources: ${info.join(', ')}`);
  return out;
}

module.exports = { describePending };
