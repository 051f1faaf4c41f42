// @ts-check
// The guided strategy: postpone one callback until another has run
// (NodeRacer's happens-before-guided postponement). The engine learns the
// racing pair from an observation run (src/internal/guide.ts) and passes it
// as two numbers, guideA and guideB: hashes of the site keys
// (`kind@file:line`) of the callback to postpone and of the one it waits for.
// The first guideCount completions of site A wait until a completion of site
// B has been delivered, or guideMaxMs, never past a guard of A's operation
// (horizons.cjs). Every other completion runs as it comes, so the reversal
// is the run's only perturbation.
'use strict';
/**
 * @typedef {import('./types').SchedEvent} SchedEvent
 * @typedef {import('./types').Strategy} Strategy
 */

/** FNV-1a, 31 bits: the same function as src/internal/guide.ts siteHash. */
function siteHash(/** @type {string} */ key) {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) { h ^= key.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return (h >>> 0) & 0x7fffffff;
}

/** The trace's site key (trace.ts siteKey): kind and site without its column. */
const siteKeyOf = (/** @type {SchedEvent} */ ev) => `${ev.kind}@${String(ev.site).replace(/:\d+$/, '')}`;

/**
 * @param {Record<string, number>} p guideA, guideB, guideMaxMs, guideCount
 * @returns {Strategy}
 */
function makeGuided(p) {
  const { installGuards, horizonOf } = require('./horizons.cjs');
  const { S, now, scheduleDrain } = require('./scheduler.cjs');
  installGuards();
  const A = p.guideA | 0, B = p.guideB | 0;
  const maxMs = p.guideMaxMs > 0 ? p.guideMaxMs : 500;
  const count = p.guideCount > 0 ? p.guideCount : 1;
  let postponedN = 0;
  let bRan = false;
  /** @type {SchedEvent[]} */
  const postponed = [];
  return {
    name: 'guided',
    params: { guideA: A, guideB: B, guideMaxMs: maxMs, guideCount: count },
    hold(ev) {
      if (bRan || postponedN >= count || siteHash(siteKeyOf(ev)) !== A) return -1;
      postponedN++;
      postponed.push(ev);
      return Math.min(maxMs, horizonOf(ev).guard);
    },
    pick(heads) { let b = 0; for (let i = 1; i < heads.length; i++) if (heads[i].ripeAt < heads[b].ripeAt) b = i; return b; },
    /** a completion was delivered: B's first one releases what waits for it */
    delivered(ev) {
      if (bRan || siteHash(siteKeyOf(ev)) !== B) return;
      bRan = true;
      for (const w of postponed) if (S.queues.has(w.key)) { w.ripe = true; w.ripeAt = now(); }
      scheduleDrain();
    },
  };
}

module.exports = { makeGuided, siteHash };
