// A message codec with EIGHT distinct planted bugs, for the triage evidence
// (docs/triage-evidence.md). The first byte of an input decides which bug it
// can reach, so the true bug of a crash report is known from its input
// (`bugOf`), independently of the stack that triage reads.
//
//   byte 0  bug id              what happens
//   'F'     codec.handler       TypeError "handlers[op] is not a function" in dispatchOp
//   'O'     codec.word          RangeError [ERR_OUT_OF_RANGE] from Buffer#readUInt32BE in readWord
//                               (thrown inside Node's own buffer code: internal frames on top)
//   'R'     codec.nesting       RangeError "Maximum call stack size exceeded" in decodeNested
//   'S'     codec.flush         Error thrown from a timer callback scheduled by scheduleFlush
//   'U'     codec.notify        unhandled rejection (promise nobody awaits) in notifyPeer
//   'E'     codec.int           TypeError "unsupported type 0x.." in encodeInt  } the same message
//   'e'     codec.str           TypeError "unsupported type 0x.." in encodeStr  } from two functions
//   'A'     codec.abort         process.abort() in panic when byte 1 is '!' (killed by SIGABRT)
import { Buffer } from "node:buffer";

/** The bug an input starting with `data[0]` can trigger (null: none). */
export function bugOf(data: Uint8Array): string | null {
  return BUGS[String.fromCharCode(data[0] ?? 0)] ?? null;
}

const BUGS: Record<string, string> = {
  F: "codec.handler",
  O: "codec.word",
  R: "codec.nesting",
  S: "codec.flush",
  U: "codec.notify",
  E: "codec.int",
  e: "codec.str",
  A: "codec.abort",
};

export function fuzz(data: Buffer): void {
  if (data.length < 2) return;
  decode(data);
}

type Handler = (data: Buffer) => unknown;
const handlers: Record<number, Handler> = { 0: () => 0, 1: (d) => d.length };

function decode(data: Buffer): unknown {
  switch (data[0]) {
    case 0x46 /* F */:
      return dispatchOp(data[1]! & 7, data);
    case 0x4f /* O */:
      return readWord(data, data[1]! % 8);
    case 0x52 /* R */:
      return decodeNested(data, 0);
    case 0x53 /* S */:
      return scheduleFlush(data.length);
    case 0x55 /* U */:
      return notifyPeer(data[1]!);
    case 0x45 /* E */:
      return encodeInt(data[1]!);
    case 0x65 /* e */:
      return encodeStr(data[1]!);
    case 0x41 /* A */:
      return panic(data[1]!);
    default:
      return null;
  }
}

function dispatchOp(op: number, data: Buffer): unknown {
  // Bug: only ops 0 and 1 have handlers.
  return handlers[op]!(data);
}

function readWord(data: Buffer, offset: number): number {
  // Bug: the offset is not checked against the input length.
  return data.readUInt32BE(offset);
}

function decodeNested(data: Buffer, pos: number): number {
  // Bug: no depth limit, and the position wraps, so 'R' at byte 0 recurses forever.
  if (data[pos % data.length] === 0x52 || pos > 0) return 1 + decodeNested(data, pos + 1);
  return 0;
}

function scheduleFlush(size: number): void {
  setTimeout(() => {
    throw new Error(`flush failed after ${size} bytes`);
  }, 0);
}

function notifyPeer(peer: number): void {
  // Bug: the rejection is never handled.
  void Promise.reject(new Error(`peer ${peer} closed the channel`));
}

function encodeInt(type: number): number {
  if (type > 0x10) throw new TypeError(`unsupported type 0x${type.toString(16)}`);
  return type;
}

function encodeStr(type: number): string {
  if (type > 0x10) throw new TypeError(`unsupported type 0x${type.toString(16)}`);
  return String(type);
}

function panic(code: number): number {
  if (code === 0x21) process.abort();
  return code;
}
