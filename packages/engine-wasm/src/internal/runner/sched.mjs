// @ts-check
// The token scheduler, run by whichever thread gives the token away (only the
// token holder decides, so the decision sequence is deterministic):
//  - candidates are threads parked at a yield point;
//  - threads still running toward their next yield (just spawned, just woken)
//    are waited for, so the candidate set does not depend on timing;
//  - a thread blocked in memory.atomic.wait32 whose condition already holds
//    should wake: it is waited for too, up to WAKE_MS, then marked stuck;
//  - no candidate left while threads are blocked: deadlock, or lost wake-up
//    when a stuck thread's condition holds (after LOST_MS).
// Choices: replayed decisions first, then seeded uniform (token) or PCT.
import * as C from "./ctl.mjs";
import { xorshift32 } from "./xorshift32.mjs";

export class AbortRun extends Error {}

/** @param {Int32Array} ctl @param {Int32Array} mem32 */
export function makeScheduler(ctl, mem32) {
  const now = () => performance.now();
  const bump = () => { Atomics.add(ctl, C.CHANGE, 1); Atomics.notify(ctl, C.CHANGE); };
  const setState = (/** @type {number} */ t, /** @type {number} */ s) => { Atomics.store(ctl, C.TB(t) + C.T_STATE, s); bump(); };
  const fail = (/** @type {number} */ code, /** @type {number} */ t) => {
    if (Atomics.compareExchange(ctl, C.ERROR, 0, code) === 0) Atomics.store(ctl, C.ERROR_THREAD, t);
    Atomics.store(ctl, C.END, 1);
    Atomics.notify(ctl, C.END);
  };
  const rand = () => {
    const x = xorshift32(ctl[C.RNG] | 0);
    ctl[C.RNG] = x;
    return x >>> 0;
  };

  /**
   * Systematic runs: a thread parked where its next step touches no shared memory
   * (at its entry, or at a plain yield) commutes with every other step, so only one
   * order of such steps is explored: the first such thread goes, and is the only
   * candidate recorded (a partial-order reduction).
   * @param {number[]} cands
   */
  const invisible = (cands) => (ctl[C.SYSTEMATIC] ? cands.find((c) => ctl[C.TB(c) + C.T_PADDR] < 0) : undefined);

  /** Byte range of thread t's pending access. */
  const range = (/** @type {number} */ t) => {
    const b = C.TB(t);
    const i = ctl[b + C.T_SITE] - C.SITE_BASE;
    const w = i >= 0 && i < C.MAX_WIDTHS ? ctl[C.WIDTHS + i] || 8 : 8;
    return [ctl[b + C.T_PADDR], ctl[b + C.T_PADDR] + w];
  };
  /** Thread c is about to make its access: sleeping threads whose pending access conflicts with it wake up. */
  const wake = (/** @type {number} */ c) => {
    const [a0, a1] = range(c);
    let sleep = ctl[C.SLEEP] & ~(1 << c);
    if (a0 >= 0)
      for (let t = 0; t < 31; t++) {
        if (!(sleep & (1 << t))) continue;
        const [b0, b1] = range(t);
        if (b0 >= 0 && a0 < b1 && b0 < a1 && (ctl[C.TB(c) + C.T_PKIND] === 2 || ctl[C.TB(t) + C.T_PKIND] === 2)) sleep &= ~(1 << t);
      }
    ctl[C.SLEEP] = sleep;
  };

  /** @param {number} from @param {number[]} cands */
  function choose(from, cands) {
    const step = ctl[C.STEP];
    if (step < ctl[C.REPLAY_LEN]) {
      const want = ctl[C.REPLAY + step];
      if (cands.includes(want)) return want;
      return cands.includes(from) ? from : cands[0];
    }
    const inv = invisible(cands);
    if (inv !== undefined) return inv;
    if (ctl[C.SLEEP]) {
      // Sleeping threads' next steps were explored from here in an equivalent order already.
      const awake = cands.filter((c) => !(ctl[C.SLEEP] & (1 << c)));
      if (awake.length) cands = awake;
    }
    if ((ctl[C.REPLAY_LEN] > 0 || ctl[C.SYSTEMATIC]) && !ctl[C.RANDOM_TAIL]) return cands.includes(from) ? from : cands[0];
    if (ctl[C.MODE] === C.MODE_PCT) {
      const ncp = ctl[C.PCT_NCP];
      for (let i = 0; i < ncp; i++) if (ctl[C.PCT_CP + i] === step && from >= 0) ctl[C.TB(from) + C.T_PRIO] = i;
      const best = () => {
        let b = cands[0];
        for (const c of cands) if (ctl[C.TB(c) + C.T_PRIO] > ctl[C.TB(b) + C.T_PRIO]) b = c;
        return b;
      };
      let b = best();
      // Liveness: a thread that keeps the token for SPIN_LIMIT decisions while others wait is
      // probably spinning on them (a lock, a CAS loop): it drops below every other priority.
      if (b === from && cands.length > 1 && ctl[C.RUN_LEN] >= C.SPIN_LIMIT) {
        let min = Infinity;
        for (const c of cands) min = Math.min(min, ctl[C.TB(c) + C.T_PRIO]);
        ctl[C.TB(from) + C.T_PRIO] = min - 1;
        b = best();
      }
      return b;
    }
    if (ctl[C.MODE] === C.MODE_RACE) return ctl[C.FOCUS] >= 0 ? chooseFocused(from, cands, step) : chooseRace(from, cands, step);
    return cands[rand() % cands.length];
  }

  /** Is thread t between a read of X and a write of X (a read-modify-write split into two accesses)? */
  const midRmw = (/** @type {number} */ t) => {
    const b = C.TB(t);
    return ctl[b + C.T_PKIND] === 2 && ctl[b + C.T_LKIND] === 1 && ctl[b + C.T_LADDR] === ctl[b + C.T_PADDR];
  };

  /** Record that thread t accesses addr; returns the mask of threads seen at addr so far. */
  function noteAccess(/** @type {number} */ addr, /** @type {number} */ t) {
    let h = (Math.imul(addr, 0x9e3779b1) >>> 22) % C.ADDR_SLOTS;
    for (let n = 0; n < C.ADDR_SLOTS; n++, h = (h + 1) % C.ADDR_SLOTS) {
      const k = C.ADDR_TABLE + 2 * h;
      if (ctl[k + 1] === 0) { ctl[k] = addr; ctl[k + 1] = 1 << t; return 1 << t; }
      if (ctl[k] === addr) { ctl[k + 1] |= 1 << t; return ctl[k + 1]; }
    }
    return 1 << t;
  }

  // Helpers of the race choices. A held thread's T_HELD is the step it was held at (+1).
  const P = (/** @type {number} */ t) => ctl[C.TB(t) + C.T_PADDR];
  const K = (/** @type {number} */ t) => ctl[C.TB(t) + C.T_PKIND];
  const isHeld = (/** @type {number} */ t) => ctl[C.TB(t) + C.T_HELD] !== 0;
  const hold = (/** @type {number} */ t, /** @type {number} */ step) => { ctl[C.TB(t) + C.T_HELD] = step + 1; };
  const take = (/** @type {number} */ t) => { ctl[C.TB(t) + C.T_HELD] = 0; return t; };
  const pick = (/** @type {number[]} */ xs) => xs[rand() % xs.length];
  /** Release holds older than `limit(t)` decisions. */
  const expire = (/** @type {number[]} */ cands, /** @type {number} */ step, /** @type {(t: number) => number} */ limit) => {
    for (const c of cands) if (isHeld(c) && step - ctl[C.TB(c) + C.T_HELD] > limit(c)) take(c);
  };
  /** `from` and `met` are parked at one address: the seed orders them, favouring a second thread into a split RMW window. */
  const meet = (/** @type {number} */ from, /** @type {number[]} */ met) => {
    if (midRmw(from) && rand() % 100 < 80) return take(pick(met));
    if (met.some(midRmw) && K(from) === 1 && rand() % 100 < 80) return take(from);
    return take(rand() & 1 ? from : pick(met));
  };
  /** No race decision: the token mostly stays with `from`, else goes to a thread not held. */
  const drift = (/** @type {number} */ from, /** @type {number[]} */ cands) => {
    if (from >= 0 && cands.includes(from) && !isHeld(from) && rand() % 100 < 80) return from;
    const free = cands.filter((c) => !isHeld(c));
    return take(free.length ? pick(free) : pick(cands));
  };

  /**
   * Race-directed choice (after RaceFuzzer): a thread about to access address X is
   * held back at random until another thread parks at a conflicting access to X
   * (same address, one of them a write); then the seed picks which goes first.
   * Held threads are released after HOLD_STEPS decisions or when nothing else can run.
   * A thread between a read of X and a write of X (a read-modify-write that is not
   * one atomic instruction) is held more often and longer, and another thread's
   * access to X is let in first more often: that is the window a lost update needs.
   */
  function chooseRace(/** @type {number} */ from, /** @type {number[]} */ cands, /** @type {number} */ step) {
    expire(cands, step, (c) => (midRmw(c) ? C.HOLD_STEPS * 4 : C.HOLD_STEPS));
    if (from >= 0 && cands.includes(from) && P(from) >= 0) {
      const x = P(from);
      const seenBy = noteAccess(x, from);
      const conf = cands.filter((c) => c !== from && P(c) === x && (K(c) === 2 || K(from) === 2));
      if (conf.length) return meet(from, conf);
      const others = cands.filter((c) => c !== from && !isHeld(c));
      const shared = (seenBy & ~(1 << from)) !== 0;
      if (others.length && rand() % 100 < (midRmw(from) ? 90 : shared ? 70 : 50)) {
        hold(from, step);
        return pick(others);
      }
    }
    return drift(from, cands);
  }

  /**
   * Focused race choice (after RaceFuzzer, which postpones threads only at the
   * statements of one suspected race): a thread about to access a focus address
   * F is held while anything else can run, until another thread parks at F too;
   * there the seed orders them (meet). Elsewhere the token mostly stays where it is.
   */
  function chooseFocused(/** @type {number} */ from, /** @type {number[]} */ cands, /** @type {number} */ step) {
    expire(cands, step, () => C.HOLD_STEPS * 4);
    const F = from >= 0 ? P(from) : -1;
    if (cands.includes(from) && F >= 0 && (F === ctl[C.FOCUS] || F === ctl[C.FOCUS2])) {
      const met = cands.filter((c) => c !== from && P(c) === F);
      if (met.length) return meet(from, met);
      const others = cands.filter((c) => c !== from && !isHeld(c));
      if (others.length && rand() % 100 < 95) {
        hold(from, step);
        return take(pick(others));
      }
    }
    return drift(from, cands);
  }

  /** Give the token to a parked thread (possibly `from` itself); -1 when none is left. */
  function decide(/** @type {number} */ from) {
    const n = ctl[C.NTHREADS];
    let since = 0;
    for (;;) {
      if (Atomics.load(ctl, C.ABORT)) throw new AbortRun("aborted");
      const cv = Atomics.load(ctl, C.CHANGE);
      /** @type {number[]} */ const cands = [];
      let pending = false, blocked = 0, stuck = 0, shouldWake = 0;
      for (let t = 0; t < n; t++) {
        const b = C.TB(t);
        const s = Atomics.load(ctl, b + C.T_STATE);
        if (s === C.S_PARKED) cands.push(t);
        else if (s === C.S_RUNNING) { if (t !== from) pending = true; }
        else if (s === C.S_BLOCKED) {
          if (Atomics.load(mem32, ctl[b + C.T_ADDR] >>> 2) !== ctl[b + C.T_EXP]) {
            shouldWake++;
            if (ctl[b + C.T_STUCK]) stuck++; else pending = true;
          } else blocked++;
        }
      }
      if (pending || (cands.length === 0 && stuck > 0)) {
        if (!since) since = now();
        const waited = now() - since;
        const limit = cands.length ? ctl[C.WAKE_MS] : ctl[C.LOST_MS];
        if (waited > limit) {
          let markedAny = false;
          for (let t = 0; t < n; t++) {
            const b = C.TB(t);
            if (Atomics.load(ctl, b + C.T_STATE) === C.S_BLOCKED && !ctl[b + C.T_STUCK] &&
                Atomics.load(mem32, ctl[b + C.T_ADDR] >>> 2) !== ctl[b + C.T_EXP]) { ctl[b + C.T_STUCK] = 1; markedAny = true; }
          }
          if (!markedAny && cands.length === 0 && stuck > 0) { fail(C.ERR_LOST_WAKEUP, from); return -1; }
          if (!markedAny && pending && waited > ctl[C.LOST_MS] * 4) { return -2; /* a running thread never parks: leave it to the watchdog */ }
        }
        Atomics.wait(ctl, C.CHANGE, cv, 1);
        continue;
      }
      if (cands.length === 0) {
        if (blocked + shouldWake > 0) fail(shouldWake ? C.ERR_LOST_WAKEUP : C.ERR_DEADLOCK, from);
        return -1;
      }
      // After a free entry the token holder is whoever arrived last (timing): the first choice must not prefer it.
      const c = choose(ctl[C.FREE_ENTRY] && ctl[C.STEP] === 0 ? -1 : from, cands);
      ctl[C.RUN_LEN] = c === from ? ctl[C.RUN_LEN] + 1 : 0;
      const step = ctl[C.STEP];
      if (step < C.MAX_TRACE) {
        ctl[C.TRACE + step] = c;
        if (ctl[C.SYSTEMATIC]) {
          const inv = invisible(cands);
          let mask = 0;
          if (inv !== undefined) mask = 1 << inv;
          else for (const t of cands) mask |= 1 << t;
          ctl[C.CANDS + step] = mask;
          // The access the chosen thread performs in this step (its dependence with other steps).
          ctl[C.ACCESS + 2 * step] = ctl[C.TB(c) + C.T_PADDR];
          ctl[C.ACCESS + 2 * step + 1] = (ctl[C.TB(c) + C.T_SITE] << 2) | ctl[C.TB(c) + C.T_PKIND];
          if (ctl[C.SLEEP] && step >= ctl[C.REPLAY_LEN]) wake(c);
        }
      }
      ctl[C.STEP] = step + 1;
      Atomics.store(ctl, C.TOKEN, c);
      Atomics.add(ctl, C.TB(c) + C.T_GO, 1);
      Atomics.notify(ctl, C.TB(c) + C.T_GO);
      return c;
    }
  }

  function waitToken(/** @type {number} */ me) {
    const go = C.TB(me) + C.T_GO;
    for (;;) {
      const g = Atomics.load(ctl, go);
      if (Atomics.load(ctl, C.TOKEN) === me) return;
      if (Atomics.load(ctl, C.ABORT)) throw new AbortRun("aborted");
      Atomics.wait(ctl, go, g, 20);
    }
  }

  return {
    setState,
    bump,
    fail,
    /** A yield point: the token holder decides who goes next (a thread still on its free entry only parks). */
    yieldPoint(/** @type {number} */ me) {
      // T_PADDR / T_PKIND were set by the caller (-1 for a yield that is not before an access).
      const holder = Atomics.load(ctl, C.TOKEN) === me;
      setState(me, C.S_PARKED);
      if (holder) decide(me);
      waitToken(me);
      setState(me, C.S_RUNNING);
    },
    /**
     * Entry of a thread: park; the last initial thread to arrive makes the first decision.
     * With FREE_ENTRY, the threads run at once to their first yield point (code before it
     * touches no memory, so no order among them matters) and the last one to arrive holds
     * the token: its first decision waits for the others to park there.
     */
    enter(/** @type {number} */ me) {
      if (ctl[C.FREE_ENTRY]) {
        if (Atomics.add(ctl, C.ARRIVED, 1) + 1 === ctl[C.N_INITIAL]) Atomics.store(ctl, C.TOKEN, me);
        return;
      }
      setState(me, C.S_PARKED);
      if (Atomics.add(ctl, C.ARRIVED, 1) + 1 === ctl[C.N_INITIAL]) decide(-1);
      waitToken(me);
      setState(me, C.S_RUNNING);
    },
    /** Before memory.atomic.wait32 on `addr` expecting `exp`. */
    preWait(/** @type {number} */ me, /** @type {number} */ addr, /** @type {number} */ exp) {
      const b = C.TB(me);
      ctl[b + C.T_ADDR] = addr;
      ctl[b + C.T_EXP] = exp;
      ctl[b + C.T_STUCK] = 0;
      const willBlock = Atomics.load(mem32, addr >>> 2) === exp;
      const holder = Atomics.load(ctl, C.TOKEN) === me;
      setState(me, willBlock ? C.S_BLOCKED : C.S_PARKED);
      if (holder) decide(me);
    },
    /** After the wait returned (woken, timed out or not-equal). */
    postWait(/** @type {number} */ me) {
      const b = C.TB(me);
      ctl[b + C.T_STUCK] = 0;
      if (Atomics.load(ctl, C.TOKEN) === me && Atomics.load(ctl, b + C.T_STATE) === C.S_PARKED) { setState(me, C.S_RUNNING); return; }
      setState(me, C.S_PARKED);
      waitToken(me);
      setState(me, C.S_RUNNING);
    },
    /** A thread returned: hand the token on. */
    finish(/** @type {number} */ me) {
      setState(me, C.S_DONE);
      if (Atomics.load(ctl, C.TOKEN) === me) decide(me);
    },
  };
}
