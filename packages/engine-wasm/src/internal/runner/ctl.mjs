// @ts-check
// Layout of the control SharedArrayBuffer shared by the child process's main
// thread and its worker threads (Int32 indices). Plain JS: it runs inside the
// supervised child process, which carries no TypeScript loader.
export const CTL_INTS = 16384 + 8192 * 3 + 4096;
export const MODE = 0; // 0 free, 1 token (seeded random), 2 pct
export const TOKEN = 1; // thread holding the token, -1 nobody
export const STEP = 2; // decisions made so far
export const RNG = 3; // xorshift32 state of the token scheduler
export const ERROR = 4; // 0 none, see ERR_*
export const DONE_COUNT = 5;
export const NTHREADS = 6;
export const ARRIVED = 7;
export const N_INITIAL = 8;
export const END = 9;
export const CHANGE = 10;
export const REPLAY_LEN = 11;
export const TRACE_LEN = 12;
export const PCT_NCP = 13; // number of change points (d - 1)
export const PCT_CP = 14; // .. 21: change points (step numbers)
export const ERROR_THREAD = 22;
export const ABORT = 23;
export const SPIN_PM = 24;
export const SLEEP_PM = 25;
export const MAX_SPIN = 26;
export const MAX_SLEEP_US = 27;
export const START_DELAY_US = 28;
export const FREE_SEED = 29;
export const BARRIER = 30;
export const WAKE_MS = 31;
export const LOST_MS = 32;
export const SLEEP_WORD = 33;
export const IDLE_COUNT = 34;
export const RUN_LEN = 35; // consecutive decisions that kept the same thread
export const FOCUS = 36; // race strategy: the address this run's holds target (-1: any address)
export const FOCUS2 = 37; // and a second one (a lock's data cell beside its lock word), or -1
export const SYSTEMATIC = 38; // dfs: invisible steps first, candidate sets recorded as reduced
export const SLEEP = 40; // systematic runs: after the replayed prefix, threads not to choose (a sleep set) until a conflicting access runs
export const FREE_ENTRY = 41; // token modes: threads run to their first yield point without the token (see sched.enter)
export const RANDOM_TAIL = 39; // systematic runs: after the replayed prefix, seeded random choices instead of letting the running thread go on
export const SPIN_LIMIT = 48;
export const TB = (/** @type {number} */ t) => 64 + t * 16;
export const T_STATE = 0;
export const T_ADDR = 2;
export const T_EXP = 3;
export const T_PRIO = 4;
export const T_MAILBOX = 5;
export const T_STUCK = 6;
export const T_SITE = 7;
export const T_YIELDS = 8;
export const T_IDLE = 9;
export const T_PADDR = 10; // address of the access the thread is parked before (-1: none)
export const T_PKIND = 11; // 1 read, 2 write/rmw
export const T_HELD = 12; // race strategy: step at which the thread was held back (0: not held)
export const T_LADDR = 13; // address of the thread's previous access (-1: none, or a plain yield came between)
export const T_LKIND = 14; // its kind
export const T_GO = 15; // bumped when the token is given to the thread: it sleeps on its own word, so a hand-off wakes only the thread that gets the token
export const HOLD_STEPS = 40;
export const TRACE = 1024;
export const MAX_TRACE = 8192;
export const REPLAY = TRACE + MAX_TRACE;
export const MAX_REPLAY = 4096;
export const RESULTS = REPLAY + MAX_REPLAY; // 16 ints per thread: count, values...
export const MAX_RESULTS = 15;
/** Race strategy: open-addressing table addr -> bitmask of threads that accessed it (pairs of ints). */
export const ADDR_TABLE = RESULTS + 256;
export const ADDR_SLOTS = 1024;
/** Per decision: bitmask of the threads that were candidates (the systematic explorer's branching). */
export const CANDS = 16384;
/** Per decision (systematic runs): the chosen thread's access, as pairs [address (-1: none), site*4 + kind]. */
export const ACCESS = CANDS + MAX_TRACE;
/** Byte width of the access at each instrumentation site (index: site - SITE_BASE; 0: unknown, taken as 8). */
export const WIDTHS = ACCESS + 2 * MAX_TRACE;
export const MAX_WIDTHS = 4096;
export const SITE_BASE = 10000; // text/instrument.ts numbers its sites from here

export const S_IDLE = 0, S_RUNNING = 1, S_PARKED = 2, S_BLOCKED = 3, S_DONE = 4;
export const CMD_RUN = 1, CMD_RELOAD = 2;
export const ERR_DEADLOCK = 1, ERR_LOST_WAKEUP = 2, ERR_TRAP = 3;
export const MODE_FREE = 0, MODE_TOKEN = 1, MODE_PCT = 2, MODE_RACE = 3;
