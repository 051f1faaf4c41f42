// Zeller's delta debugging (ddmin): the smallest subsequence (1-minimal) of
// `items` for which `fails` still holds, with a cap on tests. Generic so the
// same reducer serves bytes, held schedule events or program parts.

export interface DdminOptions {
  /** Stop after this many calls of `fails`. Default 2000. */
  maxTests?: number;
  /** Stop when this signal aborts (returns the best so far). */
  signal?: AbortSignal;
}

export async function ddmin<T>(items: readonly T[], fails: (candidate: T[]) => Promise<boolean>, opts: DdminOptions = {}): Promise<{ result: T[]; tests: number }> {
  const maxTests = opts.maxTests ?? 2000;
  let tests = 0;
  const test = async (c: T[]) => {
    tests++;
    return fails(c);
  };
  let current = items.slice();
  let n = 2;
  while (current.length >= 2 && tests < maxTests && !opts.signal?.aborted) {
    const chunk = Math.ceil(current.length / n);
    const parts: T[][] = [];
    for (let i = 0; i < current.length; i += chunk) parts.push(current.slice(i, i + chunk));
    let reduced = false;
    // Try each part alone, then each complement.
    for (const p of parts) {
      if (tests >= maxTests || opts.signal?.aborted) break;
      if (await test(p)) {
        current = p;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      for (let i = 0; i < parts.length; i++) {
        if (tests >= maxTests || opts.signal?.aborted) break;
        const complement = parts.filter((_, j) => j !== i).flat();
        if (await test(complement)) {
          current = complement;
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(current.length, n * 2);
    }
  }
  // The empty input is the smallest of all: worth one try.
  if (current.length === 1 && tests < maxTests && (await test([]))) current = [];
  return { result: current, tests };
}
