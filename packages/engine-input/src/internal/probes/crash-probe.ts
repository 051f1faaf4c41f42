// Self-test probe that must crash: a TypeScript module (so the probe also
// proves the TS/ESM transform works) that throws for input "!".
export function fuzz(data: Buffer): void {
  if (data.length > 0 && data[0] === 0x21) throw new Error("fuzzfarm self-test probe: expected crash");
}
