// Parsers for numeric flags: commander hands us strings, and `Number` would
// turn "abc" into NaN and "-1" into a negative worker count. A bad value is a
// usage error (exit 2, one line naming the flag) before anything starts.
import { InvalidArgumentError } from "commander";

/** An integer flag within [min, max]. */
export function intFlag(min: number, max: number): (value: string) => number {
  return (value: string) => {
    const n = /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    return n;
  };
}

/** A TCP port. */
export const portFlag = intFlag(0, 65535);
/** Local worker processes on one machine. */
export const workersFlag = intFlag(0, 256);
