// @ts-check
// Perturbation strategies. Each one answers two questions for the scheduler:
//   hold(ev)   -> -1: deliver now; 0: hold until the next check phase; n>0: hold n ms
//   pick(heads)-> which ready head (first event of a FIFO key, ripe) to deliver
// Every decision draws from one seeded PRNG (@fuzzfarm/rng, scrambled seeding). The
// draws follow interception order, which follows real I/O timing: a seed
// explores, the recorded delivery order replays (see scheduler.cjs).
'use strict';
/**
 * What the scheduler asks a strategy, about which events (types.ts):
 * @typedef {import('./types').Strategy} Strategy
 * @typedef {import('./types').SchedEvent} SchedEvent
 */
const { createRng } = require('@fuzzfarm/rng');

/** Defaults of every strategy parameter (documented in the CLI's --help). */
const DEFAULTS = {
  holdProb: 0.8,     // shuffle: probability that a completion waits for the next check phase
  delayProb: 0.3,    // delay: probability that a completion is delayed
  maxDelayMs: 50,    // delay/pct/demux: largest hold in ms
  spreadMs: 3,       // demux: largest extra spread of thread-pool completions in ms
  depth: 3,          // pct: bug depth d (d-1 priority change points)
  events: 20,        // pct: expected number of events (range of change points)
  ioProb: 0.6,       // horizon: probability that an I/O completion (thread pool, socket, child, port) is delayed
  closeProb: 0.7,    // horizon: probability that a close callback is deferred (widens e.g. a socket's 'timeout' -> 'close' window)
  crossShare: 0.35,  // horizon: share of those delays that end just after a live program timer fires
  shortShare: 0.15,  // horizon: share that only wait 0..3 ms
  nextShare: 0.3,    // horizon: share postponed until 1..3 other callbacks ran (bounded like the others)
  lastShare: 0.15,   // horizon: share postponed until the program is otherwise quiet (nothing else in flight or held; bounded like the others; the rest: uniform up to the horizon)
  idleHorizonMs: 150, // horizon: the horizon when the program has no timer of its own pending
  followProb: 0.35,  // horizon: ioProb is multiplied by this while a completion waits for others to run or to be last (one reversal at a time)
  timerLateProb: 0.1, // horizon: probability that a fired timer runs late (and every timer due after it)
  lateMs: 20,        // horizon: largest lateness of a late timer in ms
  lateLoopProb: 0.5, // horizon: probability that a late timer's phase also runs every other fired timer
  guards: 1,         // horizon: 0 lets delays cross the operation's own timeouts (for measuring what the guards prevent)
  lateProb: 0.9,     // late: probability that a completion is answered as late as its guards allow
  lifo: 1,           // late: 1 answers the held completions newest first (the operation started first finishes last), 0 oldest first
  straggler: 1,      // late with lifo 0: the first completion that arrives while another request is in flight is answered after all the others
  stallProb: 0.9,    // late: probability that a worker thread stalls right after it posts to its parent (threads.cjs: the slow thread)
  stallSteps: 3,     // late: such a stall lasts until the parent handled the message and started 2..1+stallSteps more callbacks
  stallMs: 250,      // late: and never longer than this, in ms
  stalls: 8,         // late: at most this many stalls per worker thread
};

/**
 * horizon: delays sized by the program's own timers (horizons.cjs): cross a
 * live timer, or wait up to the farthest one, never past the operation's guards.
 * @param {Record<string, number>} p @param {import('@fuzzfarm/rng').Rng} rng
 */
function horizonDelay(p, rng, /** @type {SchedEvent} */ ev) {
  const { horizonOf } = require('./horizons.cjs');
  const { S } = require('./scheduler.cjs');
  const h = horizonOf(ev, p.guards !== 0);
  let far = 0;
  for (const x of h.cross) if (x > far) far = x;
  const horizon = Math.max(4, Math.ceil(far > 0 ? far * 1.5 : p.idleHorizonMs));
  let d;
  const r = rng.unit();
  if (r < p.shortShare) d = rng.between(0, 3);
  else if (r < p.shortShare + p.crossShare && h.cross.length) d = Math.ceil(h.cross[rng.between(0, h.cross.length - 1)]) + rng.between(1, 4);
  else if (r < p.shortShare + p.crossShare + p.nextShare) { ev.waitFor = rng.between(1, 3); d = Math.max(horizon, p.idleHorizonMs); }
  // one completion at a time waits to be last: two would only keep their order
  else if (r < p.shortShare + p.crossShare + p.nextShare + p.lastShare && S.quiet.size === 0) { ev.last = true; d = Math.max(horizon, p.idleHorizonMs); }
  else d = rng.between(1, horizon);
  return Math.min(d, h.guard);
}

/**
 * The generator of one run's schedule. Seeds are scrambled: neighbouring seeds
 * (a job runs seeds N, N+1, ...) must explore unrelated schedules.
 * @param {number} seed
 */
function makeRng(seed) {
  return createRng(seed, { scramble: true });
}

const POOL_KINDS = new Set(['fs', 'fs.promise', 'dns', 'crypto', 'zlib']);

/**
 * @param {string} name
 * @param {Record<string, number>} params
 * @param {import('@fuzzfarm/rng').Rng} rng
 * @returns {Strategy}
 */
function makeStrategy(name, params, rng) {
  // guided needs the racing pair of an observation run (guideA/guideB): not a
  // strategy to run alone, so it is not one of the cases below
  if (name === 'guided') return require('./guided.cjs').makeGuided(params);
  const p = { ...DEFAULTS, ...params };
  const randomPick = (/** @type {SchedEvent[]} */ heads) => heads.length === 1 ? 0 : rng.between(0, heads.length - 1);
  switch (name) {
    case 'none':
      return { name, params: {}, hold: () => -1, pick: () => 0 };
    case 'shuffle':
      return { name, params: { holdProb: p.holdProb }, hold: () => (rng.unit() < p.holdProb ? 0 : -1), pick: randomPick };
    case 'delay':
      return {
        name, params: { delayProb: p.delayProb, maxDelayMs: p.maxDelayMs },
        hold: () => (rng.unit() < p.delayProb ? rng.between(1, Math.max(1, p.maxDelayMs)) : -1),
        pick: (heads) => { let b = 0; for (let i = 1; i < heads.length; i++) if (heads[i].ripeAt < heads[b].ripeAt) b = i; return b; },
      };
    case 'demux':
      // Node.fz de-multiplexing: every completion is handed over alone, in a
      // random order; thread-pool work gets a random 0..max ms extra spread.
      return {
        name, params: { spreadMs: p.spreadMs },
        hold: (ev) => (POOL_KINDS.has(ev.kind) ? rng.between(0, Math.max(0, p.spreadMs)) : 0),
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
      for (let i = 1; i < p.depth; i++) changes.add(rng.between(1, Math.max(1, p.events)));
      let count = 0, low = 0;
      const prioOf = (/** @type {SchedEvent} */ ev) => {
        let v = prio.get(ev.site);
        if (v === undefined) { v = rng.unit(); prio.set(ev.site, v); }
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
    case 'horizon': {
      require('./horizons.cjs').installGuards();
      /** @type {(keyof typeof DEFAULTS)[]} */
      const keys = ['ioProb', 'closeProb', 'crossShare', 'shortShare', 'nextShare', 'lastShare', 'idleHorizonMs', 'followProb', 'timerLateProb', 'lateMs', 'lateLoopProb', 'guards'];
      /** @type {Record<string, number>} */
      const used = {};
      for (const k of keys) used[k] = p[k];
      return {
        name, params: used,
        hold: (ev) => {
          if (ev.kind === 'immediate') return -1;
          if (ev.kind === 'timeout') return rng.unit() < p.timerLateProb ? rng.between(1, Math.max(1, p.lateMs)) : -1;
          const { S } = require('./scheduler.cjs');
          const base = ev.kind === 'close' ? p.closeProb : p.ioProb;
          const prob = (S.waiters.size > 0 || S.quiet.size > 0) && ev.kind !== 'close' ? base * p.followProb : base;
          return rng.unit() < prob ? horizonDelay(p, rng, ev) : -1;
        },
        pick: (heads) => { let b = 0; for (let i = 1; i < heads.length; i++) if (heads[i].ripeAt < heads[b].ripeAt) b = i; return b; },
        lateLoop: () => rng.unit() < p.lateLoopProb,
      };
    }
    case 'late': {
      // The slow-I/O schedule: a completion (thread pool, socket, child, close
      // callback) is answered after every live program timer within the
      // horizon has fired, and then only once the program is otherwise quiet
      // (nothing in flight, every other held completion waiting too), never
      // past its guards (horizons.cjs). Held completions are answered one at
      // a time, newest first: the operation started first finishes last. A
      // slow disk, pool or peer does exactly this, and it is the schedule of
      // most real event races: a completion that the code assumed would come
      // before a timer, or before a later operation's, comes after both.
      // With lifo 0 they are answered oldest first (two chains take turns).
      require('./horizons.cjs').installGuards();
      const { horizonOf } = require('./horizons.cjs');
      let stragglerTaken = false;
      return {
        name, params: { lateProb: p.lateProb, lifo: p.lifo, straggler: p.straggler, idleHorizonMs: p.idleHorizonMs, guards: p.guards, stallProb: p.stallProb, stallSteps: p.stallSteps, stallMs: p.stallMs, stalls: p.stalls },
        lifo: p.lifo !== 0,
        // and the slow thread (threads.cjs): a worker thread stalls right after it posts
        threads: p.stallProb > 0 ? { stallProb: p.stallProb, stallSteps: p.stallSteps, stallMs: p.stallMs, stalls: p.stalls } : undefined,
        hold: (ev) => {
          // a child's exit is the signal its output races with: it comes as
          // it comes, while its output is slow
          if (ev.kind === 'immediate' || ev.kind === 'timeout' || ev.kind === 'exit') return -1;
          if (rng.unit() >= p.lateProb) return -1;
          const h = horizonOf(ev, p.guards !== 0);
          let far = -1;
          for (let i = 0; i < h.cross.length; i++) if (far < 0 || h.cross[i] > h.cross[far]) far = i;
          const after = far >= 0 ? Math.ceil(h.cross[far]) + rng.between(1, 4) : 0;
          if (after >= h.guard) return h.guard;
          ev.last = true;
          // oldest first, one straggler: the first completion that arrives
          // while another request is still in flight is answered after all
          // the others (a pool thread stuck on one request)
          if (p.lifo === 0 && p.straggler !== 0 && !stragglerTaken && require('./scheduler.cjs').S.inflight.size > 0) { ev.straggler = true; stragglerTaken = true; }
          ev.notBefore = require('./scheduler.cjs').now() + after;
          // a loaded loop runs the timer late: wait for it to have run, not
          // only for its due time
          if (far >= 0) { ev.afterTimer = h.timers[far]; ev.afterStart = h.timers[far]._idleStart; }
          return Math.min(h.guard, after + p.idleHorizonMs);
        },
        pick: (heads) => { let b = 0; for (let i = 1; i < heads.length; i++) if (heads[i].ripeAt < heads[b].ripeAt) b = i; return b; },
      };
    }
    case 'mix': {
      // The default. 9/10 of the runs: the slow-I/O schedule (late), newest
      // first in a third of them and oldest first (with a straggler) in the
      // others. On bench/real-bugs it beats every other strategy on every bug
      // but one (thread-stream-245, which no strategy triggers); its two
      // orders expose different bugs: mkpath-1 and unzipper-17 need the
      // oldest first (0-3/20 newest first), write-file-atomic fails 20/20
      // newest first and 10-14/20 oldest first, so a third keeps all three
      // near 2/3 of the late runs. 1/10 pct: unguarded holds (a read held
      // past its socket's idle timeout or its query's deadline, a stat past
      // a timer armed with it), which late's guards forbid
      // (bench/node-races.ts). Shuffle, delay, demux and horizon stay for
      // --strategy and farm jobs.
      const choice = rng.unit() < 0.1 ? 'pct' : 'late';
      /** @type {Record<string, number>} */
      const drawn = {};
      const pickOf = (/** @type {number[]} */ xs) => xs[rng.between(0, xs.length - 1)];
      if (choice === 'pct') { drawn.depth = pickOf([2, 3, 4]); drawn.maxDelayMs = pickOf([60, 100]); }
      if (choice === 'late') { drawn.lateProb = 1; drawn.lifo = rng.unit() < 1 / 3 ? 1 : 0; }
      const inner = makeStrategy(choice, { ...drawn, ...params }, rng);
      return { ...inner, name: `mix:${inner.name}` };
    }
    default:
      throw new Error(`unknown strategy ${name}`);
  }
}

module.exports = { makeStrategy, makeRng, DEFAULTS };
