// Verdicts of the hunt's buckets, keyed as the bench prints them:
// "<package> <file> :: <first failing test>". The evidence behind each one is
// in docs/found-bugs.md (the hunt's section); a real race also has its folder
// under bench/hunt/found/.

export type Verdict = "our bug" | "wall-clock test" | "test setup" | "real race" | "flaky test (test's bug)";

export const VERDICTS: Record<string, { verdict: Verdict; note: string }> = {};
