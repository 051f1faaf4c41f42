// Memory layout of a generated program (one 64 KiB shared page).
//   DONE words (one per thread)   : 64 + 4*t        completion word the parent joins on
//   FLAG words (wait/notify)      : 128 + 4*f
//   LOCK words (spinlocks)        : 192 + 4*l
//   CELLS (shared atomic words)   : 256 + 8*c       8-byte aligned, width 8..64 bits
//   MAILBOXES (message passing)   : 512 + 16*f      plain words, written before flag f's release
//   THREAD regions (per thread)   : 1024 + 4096*t   plain loads/stores only here
//     +0 det (i32) +8 rsum (i64) +16 log count (i32) +32..+288 scratch, +512.. log entries (16 bytes)
import type { Stmt } from "./ir";

export const PAGE = 65536;
export const MAX_THREADS = 8;
export const doneAddr = (t: number): number => 64 + 4 * t;
export const flagAddr = (f: number): number => 128 + 4 * f;
export const lockAddr = (l: number): number => 192 + 4 * l;
export const cellAddr = (c: number): number => 256 + 8 * c;
/** Mailbox of flag f (message passing: plain words written before the flag's release), 512..1023. */
export const mailboxAddr = (f: number): number => 512 + 16 * f;
export const regionAddr = (t: number): number => 1024 + 4096 * t;
export const R_DET = 0;
export const R_RSUM = 8;
export const R_LOGN = 16;
export const R_SCRATCH = 32;
export const SCRATCH_SLOTS = 64;
/** Scratch bytes (the i32 slots of pstore/pload are its first SCRATCH_SLOTS words). */
export const SCRATCH_BYTES = 4 * SCRATCH_SLOTS;
export const R_LOG = 512;
export const LOG_ENTRY = 16;
export const MAX_LOG = Math.floor((4096 - R_LOG) / LOG_ENTRY);

/** 8-byte scratch words a thread body may write (folded into det at the thread's end, in this order). */
export function writtenWords(body: Stmt[]): number[] {
  const words = new Set<number>();
  const range = (off: number, len: number): void => {
    for (let a = off; a < off + len; a++) words.add(a >> 3);
  };
  const walk = (b: Stmt[]): void => {
    for (const s of b) {
      if (s.k === "if") { walk(s.t); walk(s.f); }
      else if (s.k === "loop" || s.k === "let") walk(s.body);
      else if (s.k === "pstore") range(4 * s.slot, 4);
      else if (s.k === "st" || s.k === "st64" || s.k === "prmw") range(s.m.off, s.m.w / 8);
      else if (s.k === "fill") range(s.off, s.len);
      else if (s.k === "copy") range(s.dst, s.len);
    }
  };
  walk(body);
  return [...words].sort((a, b) => a - b);
}
