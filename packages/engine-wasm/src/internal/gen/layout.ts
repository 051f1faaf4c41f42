// Memory layout of a generated program (one 64 KiB shared page).
//   DONE words (one per thread)   : 64 + 4*t        completion word the parent joins on
//   FLAG words (wait/notify)      : 128 + 4*f
//   LOCK words (spinlocks)        : 192 + 4*l
//   CELLS (shared atomic words)   : 256 + 8*c       8-byte aligned, width 8..64 bits
//   THREAD regions (per thread)   : 1024 + 4096*t   plain loads/stores only here
//     +0 det (i32) +8 rsum (i64) +16 log count (i32) +32..+288 scratch, +512.. log entries (16 bytes)
export const PAGE = 65536;
export const MAX_THREADS = 8;
export const doneAddr = (t: number): number => 64 + 4 * t;
export const flagAddr = (f: number): number => 128 + 4 * f;
export const lockAddr = (l: number): number => 192 + 4 * l;
export const cellAddr = (c: number): number => 256 + 8 * c;
export const regionAddr = (t: number): number => 1024 + 4096 * t;
export const R_DET = 0;
export const R_RSUM = 8;
export const R_LOGN = 16;
export const R_SCRATCH = 32;
export const SCRATCH_SLOTS = 64;
export const R_LOG = 512;
export const LOG_ENTRY = 16;
export const MAX_LOG = Math.floor((4096 - R_LOG) / LOG_ENTRY);
