// A key-value store's command decoder with NINE distinct planted bugs: the
// held-out family of the triage evidence (docs/triage-evidence.md). Written
// after the triage rules were last changed and never used to change them:
// the rules were tuned on multi-parser, multi-codec, multi-vm and the
// node-races examples, so this file measures them on crashes they have not
// seen. The first byte of an input decides which bug it can reach, so the
// true bug of a crash report is known from its input (`bugOf`), independently
// of the stack that triage reads.
//
//   byte 0  bug id            what happens
//   'K'     store.key         TypeError "Cannot read properties of undefined (reading 'toLowerCase')" in normalizeKey
//   'J'     store.snapshot    SyntaxError from JSON.parse of the input in loadSnapshot (message quotes the input)
//   'W'     store.size        StoreError "record <n> too large (<m> bytes)" in writeRecord, reached from put AND
//                             from batchPut (one bug, two callers)
//   'P'     store.quota-put   StoreError "quota exceeded" in checkPutQuota     } the same class and message
//   'p'     store.quota-app   StoreError "quota exceeded" in checkAppendQuota  } from two functions: two bugs
//   'C'     store.compact     a returned rejected promise from the async compact (after an await)
//   'Q'     store.flushq      Error thrown from a queueMicrotask callback scheduled by queueFlush
//   'I'     store.index       RangeError "Invalid array length" in buildIndex
//   'E'     store.emitter     an 'error' event (a string) without a listener: ERR_UNHANDLED_ERROR thrown inside
//                             node:events, its message quoting the string
import { Buffer } from "node:buffer";
import { EventEmitter } from "node:events";

/** The bug an input starting with `data[0]` can trigger (null: none). */
export function bugOf(data: Uint8Array): string | null {
  return BUGS[String.fromCharCode(data[0] ?? 0)] ?? null;
}

const BUGS: Record<string, string> = {
  K: "store.key",
  J: "store.snapshot",
  W: "store.size",
  P: "store.quota-put",
  p: "store.quota-app",
  C: "store.compact",
  Q: "store.flushq",
  I: "store.index",
  E: "store.emitter",
};

class StoreError extends Error {
  override name = "StoreError";
}

export function fuzz(data: Buffer): unknown {
  if (data.length < 2) return undefined;
  return command(data);
}

const names = ["alpha", "beta", "gamma"];

function command(data: Buffer): unknown {
  switch (data[0]) {
    case 0x4b /* K */:
      return normalizeKey(data[1]!);
    case 0x4a /* J */:
      return loadSnapshot(data.subarray(1));
    case 0x57 /* W */:
      return data[1]! & 1 ? put(data.subarray(2)) : batchPut(data.subarray(2));
    case 0x50 /* P */:
      return checkPutQuota(data[1]!);
    case 0x70 /* p */:
      return checkAppendQuota(data[1]!);
    case 0x43 /* C */:
      return compact(data[1]!);
    case 0x51 /* Q */:
      return queueFlush(data.length);
    case 0x49 /* I */:
      return buildIndex(data[1]!);
    case 0x45 /* E */:
      return announce(data[1]!);
    default:
      return null;
  }
}

function normalizeKey(slot: number): string {
  // Bug: slot is not checked against the table.
  return names[slot % 8]!.toLowerCase();
}

function loadSnapshot(bytes: Buffer): unknown {
  // Bug: a snapshot is parsed without a try: a malformed one throws the parser's SyntaxError.
  return JSON.parse(bytes.toString("latin1"));
}

function put(value: Buffer): number {
  return writeRecord(value.length ? value[0]! : 0, value);
}

function batchPut(values: Buffer): number {
  let n = 0;
  for (let i = 0; i + 1 < values.length; i += 2) n += writeRecord(values[i]!, values.subarray(i + 1));
  return n;
}

function writeRecord(id: number, value: Buffer): number {
  // Bug: the limit is checked with a throw instead of splitting the record.
  if (value.length > 6) throw new StoreError(`record ${id} too large (${value.length * 97} bytes)`);
  return value.length;
}

function checkPutQuota(used: number): number {
  if (used > 0xc0) throw new StoreError("quota exceeded");
  return used;
}

function checkAppendQuota(used: number): number {
  if (used > 0xc0) throw new StoreError("quota exceeded");
  return used;
}

async function compact(level: number): Promise<number> {
  await null;
  // Bug: a level above 3 is not supported, and the caller gets a rejected promise.
  if (level > 3) throw new Error(`compaction level ${level} unsupported`);
  return level;
}

function queueFlush(size: number): void {
  queueMicrotask(() => {
    throw new Error(`flush queue overflow at ${size} entries`);
  });
}

function buildIndex(hint: number): number {
  // Bug: the hint is a signed size.
  return new Array(hint - 0x80).length;
}

function announce(code: number): boolean {
  const bus = new EventEmitter();
  // Bug: nobody listens for 'error'.
  return code > 0x40 ? bus.emit("error", `announce failed with code ${code}`) : bus.emit("ready");
}
