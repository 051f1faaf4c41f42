// @ts-check
// Replay by delivery order. An event recorded at seq s waits until every
// event recorded before it has been delivered; events the recording never
// saw pass through. A recorded event is also kept until the time it was
// delivered at (ms since start), and at least as long after the previous
// recorded event as in the recording, held or not (a failure recorded on a
// loaded machine may come from a timer the load made late): order alone lets it run
// early, and then what it starts (a timer, a request) overtakes recorded
// events that the recording delivered first, through events the recording
// never saw because the run crashed before them. The gap matters on a loaded
// machine, where the whole run starts late: a timer armed by the previous
// event must still come first. A timer recorded as run in the same timers
// phase as the timer before it (`tp`) runs right after that one, before any
// poll phase: reads the recording saw only later (after its crash) would
// otherwise come between, and a read refreshes a socket's idle timer, so the
// recorded 'timeout' would never fire. A watchdog skips a recorded event
// that does not come (50 ms plus 1.5x the recorded gap, then one more poll
// phase). With `holdSet`
// (minimization) only the listed events wait; the others run as they arrive.
'use strict';
/**
 * @typedef {import('./types').SchedEvent} SchedEvent
 * @typedef {import('./types').ReplayRecord} ReplayRecord
 * @typedef {import('./types').Replayer} Replayer
 * @typedef {import('./types').Slot} Slot
 * @typedef {SchedEvent & { rec: ReplayRecord }} RecordedEvent an event the recording saw
 */
const { S, hold, deliverSync, scheduleDrain, makeSlot, cancelSlot, now } = require('./scheduler.cjs');

/**
 * @param {{events: {id: string, seq: number, held: boolean, t: number, tp?: boolean}[], holdSet?: string[] | null}} rec
 */
function installReplay(rec) {
  /** @type {Map<string, ReplayRecord>} */
  const byId = new Map();
  /** @type {number[]} */
  const times = [];
  for (const e of rec.events) { byId.set(e.id, { seq: e.seq, held: e.held, t: e.t, tp: !!e.tp }); times[e.seq] = e.t; }
  const n = rec.events.length;
  const done = new Uint8Array(n + 1);
  /** when each recorded event was delivered in this run (undefined: not yet, or skipped) */
  /** @type {number[]} */
  const deliveredAt = [];
  const holdSet = rec.holdSet ? new Set(rec.holdSet) : null;
  let next = 0;
  let lastProgress = now();
  /** @type {Slot | null} */ let watchdog = null;
  /** @type {Slot | null} */ let wake = null;
  let skipped = 0;

  const advance = () => { while (next < n && done[next]) next++; lastProgress = now(); };
  /** @type {(ev: SchedEvent) => ev is RecordedEvent} */
  const waits = (ev) => !!ev.rec && (!holdSet || holdSet.has(ev.id));
  /**
   * The earliest time a recorded event may run: its recorded time, and its
   * recorded gap after the previous one (the run may start late on a loaded
   * machine). For an event the recording did not hold the gap has
   * UNHELD_SLACK_MS of slack: such events that came in one poll phase are
   * fractions of a ms apart, and a gap measured after a late predecessor
   * would split them over phases.
   */
  const UNHELD_SLACK_MS = 5;
  const dueAt = (/** @type {RecordedEvent} */ ev) => {
    const s = ev.rec.seq;
    const prev = s > 0 ? deliveredAt[s - 1] : undefined;
    if (ev.rec.tp && prev !== undefined) return prev; // same timers phase as the previous one: right after it
    const gap = prev !== undefined && times[s - 1] !== undefined ? Math.max(0, ev.rec.t - times[s - 1]) : 0;
    const slack = ev.rec.held ? 0 : UNHELD_SLACK_MS;
    return Math.max(S.t0 + ev.rec.t, prev !== undefined ? prev + gap - slack : -Infinity);
  };
  // every recorded event, held or not: one the recording got late without
  // holding it (a loaded machine ran its timer 70 ms late) is late here too
  const due = (/** @type {RecordedEvent} */ ev) => now() >= dueAt(ev);

  /** @type {Replayer} */
  const R = {
    get skipped() { return skipped; },
    /** only some events wait (minimization): the other timers keep Node's deadline order */
    subset: !!holdSet,
    intercept(ev, q) {
      ev.rec = byId.get(ev.id) || null;
      if (ev.rec && done[ev.rec.seq]) ev.rec = null; // a second event with a recorded id: treat as new
      const free = !q && (!ev.gate || ev.gate());
      if (!waits(ev)) {
        if (free) return deliverSync(ev);
        hold(ev, -1);
        scheduleDrain();
        return undefined;
      }
      if (ev.rec.seq === next && free && due(ev)) return deliverSync(ev);
      hold(ev, -1);
      scheduleDrain();
      return undefined;
    },
    /** ripe = may run now */
    ripe(ev) { return !waits(ev) || (ev.rec.seq <= next && due(ev)); },
    /** among ripe heads, the earliest recorded first */
    pick(heads) {
      let b = 0;
      const key = (/** @type {SchedEvent} */ h) => (waits(h) ? h.rec.seq : -1);
      for (let i = 1; i < heads.length; i++) if (key(heads[i]) < key(heads[b])) b = i;
      return b;
    },
    /** the held timer recorded as run in the same timers phase right after the one just delivered, if it is here */
    samePhaseNext() {
      for (const t of S.heldTimers) {
        const q = S.queues.get(t.key);
        if (q && q[0] === t && waits(t) && t.rec.seq === next && t.rec.tp && due(t)) return t;
      }
      return null;
    },
    delivered(ev) {
      if (ev.rec && !done[ev.rec.seq]) {
        done[ev.rec.seq] = 1;
        deliveredAt[ev.rec.seq] = now();
        advance();
        if (S.held > 0) scheduleDrain(); // a held event may have become the next one
      }
    },
    /** Nothing ripe: if events wait, watch for a recorded event that never comes. */
    arm() {
      if (S.held === 0) return;
      // the next recorded events are here but early: wake at the first one's recorded time
      let at = Infinity;
      let atRefd = false;
      for (const q of S.queues.values()) {
        const h = q[0];
        if (h && waits(h) && h.rec.seq <= next && !due(h) && dueAt(h) < at) { at = dueAt(h); atRefd = h.refd(); }
      }
      if (at < Infinity) {
        if (!wake) wake = makeSlot(() => { wake = null; scheduleDrain(); }, Math.max(1, Math.ceil(at - now())), atRefd);
        return;
      }
      if (watchdog) return;
      let refd = false;
      for (const q of S.queues.values()) for (const ev of q) if (ev.refd()) refd = true;
      const mark = next;
      const gap = next > 0 && times[next] !== undefined && times[next - 1] !== undefined ? times[next] - times[next - 1] : 0;
      const allowance = 50 + Math.max(0, gap) * 1.5;
      watchdog = makeSlot(() => {
        watchdog = null;
        if (next !== mark || next >= n || now() - lastProgress < allowance - 1) { scheduleDrain(); return; }
        // Skip only after one more poll phase: a process that was stalled (a loaded machine) runs this timer
        // before it polls the I/O that arrived meanwhile, and the awaited event may be in it.
        watchdog = makeSlot(() => {
          watchdog = null;
          if (next === mark && next < n) { done[next] = 1; skipped++; advance(); }
          scheduleDrain();
        }, 0, refd);
      }, Math.ceil(allowance), refd);
    },
    stop() { cancelSlot(watchdog); watchdog = null; cancelSlot(wake); wake = null; },
  };
  S.replay = R;
  return R;
}

module.exports = { installReplay };
