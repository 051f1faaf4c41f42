// A record parser with EIGHT distinct planted bugs, for the triage evidence
// (docs/triage-evidence.md): the first byte of an input decides which bug it
// can reach, so the true bug of a crash report is known from its input alone,
// independently of the stack that triage reads. `bugOf` is that ground truth.
//
//   byte 0  bug id              what happens
//   'T'     parser.type         TypeError in lookupField (field table entry missing)
//   'L'     parser.length       RangeError in readLength, called from parseHeader  } ONE bug reached from
//   'l'     parser.length       RangeError in readLength, called from parseBody    } two callers: must merge
//   'N'     parser.name         Error "invalid record" in decodeName   } the SAME message from two
//   'V'     parser.value        Error "invalid record" in decodeValue  } functions: must stay separate
//   'C'     parser.checksum     AssertionError in verifyChecksum (values vary with the input)
//   'P'     parser.include      rejected promise from loadInclude (message holds a varying path)
//   'X'     parser.exit         process.exit(3) in abortOnVersion
//   'H'     parser.hang         endless loop in skipPadding when byte 1 is '!'
// Messages carry numbers and names taken from the input, so one bug yields
// many different message texts that triage must still put in one bucket.
import assert from "node:assert";

/** The bug an input starting with `data[0]` can trigger (null: none). */
export function bugOf(data: Uint8Array): string | null {
  return BUGS[String.fromCharCode(data[0] ?? 0)] ?? null;
}

const BUGS: Record<string, string> = {
  T: "parser.type",
  L: "parser.length",
  l: "parser.length",
  N: "parser.name",
  V: "parser.value",
  C: "parser.checksum",
  P: "parser.include",
  X: "parser.exit",
  H: "parser.hang",
};

export function fuzz(data: Buffer): unknown {
  if (data.length < 2) return undefined;
  return parse(data);
}

interface FieldType {
  name: string;
  width: number;
}

const FIELD_TYPES: Record<number, FieldType> = { 1: { name: "int", width: 4 }, 2: { name: "text", width: 0 } };

function parse(data: Buffer): unknown {
  const tag = data[0];
  if (tag === 0x54 /* T */) return lookupField(data[1]!).width;
  if (tag === 0x4c /* L */) return parseHeader(data);
  if (tag === 0x6c /* l */) return parseBody(data, 1);
  if (tag === 0x4e /* N */ || tag === 0x56 /* V */) return parseBody(data, 1);
  if (tag === 0x43 /* C */) return verifyChecksum(data);
  if (tag === 0x50 /* P */) return loadInclude(data.toString("latin1", 1, 9));
  if (tag === 0x58 /* X */) return abortOnVersion(data[1]!);
  if (tag === 0x48 /* H */) return skipPadding(data, 1);
  return null;
}

function lookupField(type: number): FieldType {
  const t = FIELD_TYPES[type];
  // Bug: an unknown type has no entry, and `t` is dereferenced anyway.
  return { name: t!.name, width: t!.width };
}

function parseHeader(data: Buffer): number {
  return readLength(data, 1);
}

function parseBody(data: Buffer, pos: number): string {
  if (data[0] === 0x4e) return decodeName(data, pos);
  if (data[0] === 0x56) return decodeValue(data, pos);
  const len = readLength(data, pos);
  return data.toString("latin1", pos + 1, pos + 1 + len);
}

function readLength(data: Buffer, pos: number): number {
  const len = data[pos]!;
  // Bug: a length past the end is rejected by throwing instead of returning null.
  if (pos + 1 + len > data.length) throw new RangeError(`length ${len} exceeds the ${data.length - pos - 1} bytes left at offset ${pos}`);
  return len;
}

function decodeName(data: Buffer, pos: number): string {
  if (data[pos]! > 0x7f) throw new Error("invalid record");
  return String.fromCharCode(data[pos]!);
}

function decodeValue(data: Buffer, pos: number): number {
  if (data[pos]! > 0x7f) throw new Error("invalid record");
  return data[pos]!;
}

function verifyChecksum(data: Buffer): boolean {
  let sum = 0;
  for (let i = 1; i < data.length - 1; i++) sum = (sum + data[i]!) & 0xff;
  assert.strictEqual(sum, data[data.length - 1], `checksum mismatch over ${data.length} bytes`);
  return true;
}

async function loadInclude(name: string): Promise<string> {
  await null;
  throw new Error(`include not found: /srv/includes/${name.replace(/[^a-z0-9]/gi, "_")}.rec`);
}

function abortOnVersion(version: number): never | number {
  if (version >= 2) {
    process.stderr.write(`unsupported version ${version}\n`);
    process.exit(3);
  }
  return version;
}

function skipPadding(data: Buffer, pos: number): number {
  // Bug: only advances over spaces, and wraps around, so '!' at byte 1 never ends.
  if (data[pos] !== 0x21) return pos;
  let i = pos;
  while (data[i] !== 0x0a) i = i + 1 < data.length ? i + 1 : pos;
  return i;
}
