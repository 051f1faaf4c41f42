// A small binary record parser with a planted bug, as a more typical fuzz
// target than magic-bytes.ts: a header, a length-prefixed name, and a list
// of typed fields. A field count above the 16-slot table overflows it.
//   [0x52 'R'] [version 1..2] [nameLen] [name...] [count] ([type] [value])*
export function fuzz(data: Buffer): void {
  parse(data);
}

interface Field {
  type: "int" | "text" | "flag";
  value: number | string | boolean;
}

export function parse(data: Buffer): { name: string; fields: Field[] } | null {
  if (data.length < 4 || data[0] !== 0x52) return null;
  const version = data[1]!;
  if (version < 1 || version > 2) return null;
  const nameLen = data[2]!;
  if (3 + nameLen >= data.length) return null;
  const name = data.toString("latin1", 3, 3 + nameLen);
  let pos = 3 + nameLen;
  const count = data[pos++]!;
  const slots: Field[] = new Array(16);
  for (let i = 0; i < count && pos < data.length; i++) {
    const type = data[pos++]!;
    let field: Field;
    if (type === 1 && pos < data.length) field = { type: "int", value: data[pos++]! };
    else if (type === 2 && version === 2) field = { type: "text", value: name };
    else if (type === 3) field = { type: "flag", value: true };
    else return null;
    if (i >= slots.length) throw new RangeError(`field table overflow at field ${i}`);
    slots[i] = field;
  }
  return { name, fields: slots.filter(Boolean) };
}
