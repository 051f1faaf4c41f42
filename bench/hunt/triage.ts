// Verdicts of the hunt's buckets, keyed as the bench prints them:
// "<package> <file> :: <first failing test>". The evidence behind each one is
// in docs/found-bugs.md (the hunt's section); a real race has its folder under
// bench/hunt/found/, a flaky test its forcing under bench/hunt/flaky/.

export type Verdict = "our bug" | "wall-clock test" | "test setup" | "real race" | "flaky test (test's bug)";

const pgPoolExitBeforeStdout = {
  verdict: "flaky test (test's bug)" as const,
  note: "asserts the forked child's stdout in its 'exit' handler; stdout can still be unread at 'exit' (bench/hunt/flaky/pg-pool-idle-timeout)",
};

export const VERDICTS: Record<string, { verdict: Verdict; note: string }> = {
  "bottleneck test/retries.js :: (fewer tests passed)": { verdict: "wall-clock test", note: "test/retries.js:41 asserts 90 < elapsed < 130 ms for two 50 ms retries" },
  "bottleneck test/retries.js :: Retries Should retry when requested by the user (sync)": { verdict: "wall-clock test", note: "test/retries.js:41 asserts 90 < elapsed < 130 ms for two 50 ms retries" },
  // recorded before the TAP reader took mocha's "not ok N title" (no dash): same failure
  "pg-pool test/idle-timeout.js :: (fewer tests passed)": pgPoolExitBeforeStdout,
  "pg-pool test/idle-timeout.js :: idle timeout keeps old behavior when allowExitOnIdle option is not set": pgPoolExitBeforeStdout,
  "pg-pool test/idle-timeout.js :: idle timeout unrefs the connections and timeouts so the program can exit when idle when the allowExitOnIdle option is set": pgPoolExitBeforeStdout,
};
