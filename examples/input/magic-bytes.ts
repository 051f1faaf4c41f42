// Acceptance target of the input engine: throws for exactly one 8-byte
// prefix, checked one byte at a time in nested ifs. Uniform random inputs hit
// it with probability 2^-64; coverage guidance solves it byte by byte,
// because every solved byte covers one more branch arm.
export function fuzz(data: Buffer): void {
  if (data[0] === 0x46) {
    if (data[1] === 0x55) {
      if (data[2] === 0x5a) {
        if (data[3] === 0x5a) {
          if (data[4] === 0x46) {
            if (data[5] === 0x41) {
              if (data[6] === 0x52) {
                if (data[7] === 0x4d) {
                  throw new Error("magic bytes reached: FUZZFARM");
                }
              }
            }
          }
        }
      }
    }
  }
}
