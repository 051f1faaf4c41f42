// @ts-check
// Registration sites: where user code asked for the callback that a
// completion will deliver. Captured once per resource (a request, a handle,
// a timer, a port), never per event: a stack capture costs 5-15 µs.
// A site is `relfile:line:col` of the first frame outside Node's internals
// and outside this interceptor; `api` names the core function the user
// called (the frame just below), e.g. `fs.readFile`.
'use strict';
const path = require('node:path');
const { fileURLToPath } = require('node:url');

const { MODE } = require('./mode.cjs');

const SELF_DIR = __dirname;
/** @type {Map<string, string>} */
const relCache = new Map();
/** @type {typeof import('node:module').findSourceMap | null} */
let findSourceMap = null;
try { findSourceMap = require('node:module').findSourceMap; } catch { /* older Node */ }

/** @param {string} file @param {string} root */
function rel(file, root) {
  let r = relCache.get(file);
  if (r !== undefined) return r;
  let p = file;
  if (p.startsWith('file://')) { try { p = fileURLToPath(p); } catch { /* keep */ } }
  r = path.relative(root, p).split(path.sep).join('/');
  if (r.startsWith('../../')) r = p;
  relCache.set(file, r);
  return r;
}

/** @param {string} file */
function skipFile(file) {
  return !file || file.startsWith('node:') || file.startsWith(SELF_DIR) || file.includes('/node_modules/tsx/') || !/[\/\\:]/.test(file);
}

/** @param {NodeJS.CallSite | undefined} cs */
function apiName(cs) {
  if (!cs) return '';
  const f = cs.getFileName() || '';
  let mod = f.startsWith('node:') ? f.slice(5).replace(/^internal\//, '').replace(/\/promises$/, '.promises') : '';
  mod = mod.replace(/^timers$/, '').replace(/^(fs|dns|net|zlib|crypto|child_process|http|stream|worker)\/.*$/, '$1');
  let fn = cs.getFunctionName() || cs.getMethodName() || '';
  if (!fn) return mod;
  return mod ? `${mod}.${fn}` : fn;
}

/**
 * Capture the user-code site of the current call.
 * @param {string} root
 * @returns {{site: string, api: string} | null}
 */
function captureSite(root) {
  if (!MODE.record) return null;
  const limit = Error.stackTraceLimit;
  const prep = Error.prepareStackTrace;
  Error.stackTraceLimit = 30;
  Error.prepareStackTrace = (_e, cs) => cs;
  /** @type {{ stack?: NodeJS.CallSite[] }} */
  const holder = {};
  Error.captureStackTrace(holder, captureSite);
  const frames = holder.stack;
  Error.stackTraceLimit = limit;
  Error.prepareStackTrace = prep;
  if (!Array.isArray(frames)) return null;
  for (let i = 0; i < frames.length; i++) {
    const file = frames[i].getFileName();
    if (!file || skipFile(file)) continue;
    let line = frames[i].getLineNumber() || 0;
    let col = frames[i].getColumnNumber() || 0;
    if (findSourceMap && /\.[cm]?tsx?$/.test(file)) {
      try {
        const sm = findSourceMap(file);
        // findEntry answers {} where nothing maps (no originalLine then)
        const e = sm && /** @type {import('node:module').SourceMapping} */ (sm.findEntry(line - 1, col - 1));
        if (e && typeof e.originalLine === 'number') { line = e.originalLine + 1; col = e.originalColumn + 1; }
      } catch { /* keep generated position */ }
    }
    return { site: `${rel(file, root)}:${line}:${col}`, api: apiName(frames[i - 1]) };
  }
  return null;
}

module.exports = { captureSite, SELF_DIR };
