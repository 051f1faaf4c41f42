// @ts-check
// Block coverage of the program's own files through the in-thread inspector
// (works the same in a spawned process and in a warm worker): started before
// the program loads, taken synchronously at exit.
'use strict';
const path = require('node:path');
const { fileURLToPath } = require('node:url');
const { SELF_DIR } = require('./sites.cjs');

function startCoverage() {
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  return {
    /** @returns {import('../trace').V8ScriptCoverage[]} V8 ScriptCoverage entries of the program's files (node_modules and the fuzzer excluded) */
    take() {
      /** @type {import('../trace').V8ScriptCoverage[]} */
      let result = [];
      session.post('Profiler.takePreciseCoverage', (err, r) => { if (!err) result = r.result; });
      return result.filter((s) => {
        if (!s.url.startsWith('file://') && !s.url.startsWith('/')) return false;
        let file;
        try { file = s.url.startsWith('file://') ? fileURLToPath(s.url) : s.url; } catch { return false; }
        return !file.includes(`${path.sep}node_modules${path.sep}`) && !file.startsWith(SELF_DIR);
      });
    },
  };
}

module.exports = { startCoverage };
