// @ts-check
// Perturbation strategies. Each one answers two questions for the scheduler:
//   hold(ev)   -> -1: deliver now; 0: hold until the next check phase; n>0: hold n ms
//   pick(heads)-> which ready head (first event of a FIFO key, ripe) to deliver
// Every decision draws from one seeded PRNG (pure-rand xoroshiro128+). The
// draws follow interception order, which follows real I/O timing: a seed
// explores, the recorded delivery order replays (see scheduler.cjs).
'use strict';
const prand = require('pure-rand');

/** Defaults of every strategy parameter (documented in the CLI's --help). */
const DEFAULTS = {
  holdProb: 0.8,     // shuffle: probability that a completion waits for the next check phase
  delayProb: 0.3,    // delay: probability that a completion is delayed
  maxDelayMs: 50,    // delay/pct/demux: largest hold in ms
  spreadMs: 3,       // demux: largest extra spread of thread-pool completions in ms
  depth: 3,          // pct: bug depth d (d-1 priority change points)
  events: 20,        // pct: expected number of events (range of change points)
};

/** @param {number} seed */
function makeRng(seed) {
  const g = prand.xoroshiro128plus(seed | 0);
  return {
    /** integer in [lo, hi] */
    int: (/** @type {number} */ lo, /** @type {number} */ hi) => prand.unsafeUniformIntDistribution(lo, hi, g),
    /** float in [0, 1) */
    next: () => prand.unsafeUniformIntDistribution(0, 0x3fffffff, g) / 0x40000000,
  };
}

const POOL_KINDS = new Set(['fs', 'fs.promise', 'dns', 'crypto', 'zlib']);

/**
 * @param {string} name
 * @param {Record<string, number>} params
 * @param {ReturnType<typeof makeRng>} rng
 * @returns {{name: string, params: Record<string, number>, hold: (ev: any) => number, pick: (heads: any[]) => number}}
 */
function makeStrategy(name, params, rng) {
  const p = { ...DEFAULTS, ...params };
  const randomPick = (/** @type {any[]} */ heads) => heads.length === 1 ? 0 : rng.int(0, heads.length - 1);
  switch (name) {
    case 'none':
      return { name, params: {}, hold: () => -1, pick: () => 0 };
    case 'shuffle':
      return { name, params: { holdProb: p.holdProb }, hold: () => (rng.next() < p.holdProb ? 0 : -1), pick: randomPick };
    case 'delay':
      return {
        name, params: { delayProb: p.delayProb, maxDelayMs: p.maxDelayMs },
        hold: () => (rng.next() < p.delayProb ? rng.int(1, Math.max(1, p.maxDelayMs)) : -1),
        pick: (heads) => { let b = 0; for (let i = 1; i < heads.length; i++) if (heads[i].ripeAt < heads[b].ripeAt) b = i; return b; },
      };
    case 'demux':
      // Node.fz de-multiplexing: every completion is handed over alone, in a
      // random order; thread-pool work gets a random 0..max ms extra spread.
      return {
        name, params: { spreadMs: p.spreadMs },
        hold: (ev) => (POOL_KINDS.has(ev.kind) ? rng.int(0, Math.max(0, p.spreadMs)) : 0),
        pick: randomPick,
      };
    case 'pct': {
      // PCT adapted to callbacks: every completion waits for the next check
      // phase and ready heads run by a random priority per site. At d-1
      // random event counts in [1, events] the arriving site is demoted below
      // all others: its completions are held maxDelayMs from then on, so a
      // bug that needs d-1 ordering constraints is hit with probability
      // about 1/events^(d-1).
      /** @type {Map<string, number>} */
      const prio = new Map();
      const changes = new Set();
      for (let i = 1; i < p.depth; i++) changes.add(rng.int(1, Math.max(1, p.events)));
      let count = 0, low = 0;
      const prioOf = (/** @type {any} */ ev) => {
        let v = prio.get(ev.site);
        if (v === undefined) { v = rng.next(); prio.set(ev.site, v); }
        return v;
      };
      return {
        name, params: { depth: p.depth, maxDelayMs: p.maxDelayMs, events: p.events },
        hold: (ev) => {
          count++;
          if (changes.has(count)) prio.set(ev.site, (low -= 1));
          const v = prioOf(ev);
          ev.prio = v;
          return v < 0 ? p.maxDelayMs : 0;
        },
        pick: (heads) => { let b = 0; for (let i = 1; i < heads.length; i++) if (heads[i].prio > heads[b].prio) b = i; return b; },
      };
    }
    case 'mix': {
      // a portfolio weighted toward what finds ordering bugs in few runs
      const choice = ['pct', 'pct', 'pct', 'pct', 'delay', 'delay', 'delay', 'shuffle', 'shuffle', 'demux'][rng.int(0, 9)];
      /** @type {Record<string, number>} */
      const drawn = {};
      const pickOf = (/** @type {number[]} */ xs) => xs[rng.int(0, xs.length - 1)];
      if (choice === 'shuffle') drawn.holdProb = pickOf([0.5, 0.8, 1]);
      if (choice === 'delay') { drawn.delayProb = pickOf([0.25, 0.5]); drawn.maxDelayMs = pickOf([20, 60, 100]); }
      if (choice === 'demux') drawn.spreadMs = pickOf([1, 3, 8]);
      if (choice === 'pct') { drawn.depth = pickOf([2, 3, 4]); drawn.maxDelayMs = pickOf([60, 100]); }
      const inner = makeStrategy(choice, { ...drawn, ...params }, rng);
      return { ...inner, name: `mix:${inner.name}` };
    }
    default:
      throw new Error(`unknown strategy ${name}`);
  }
}

module.exports = { makeStrategy, makeRng, DEFAULTS };
