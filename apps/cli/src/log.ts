// The CLI's log lines: pino events at the configured level (FUZZFARM_LOG_LEVEL),
// each printed as its message on stderr, where people read them among the
// command's own output (progress, summaries): `fuzzfarm fuzz`, `up` and `ci`
// print the same lines as before, and `FUZZFARM_LOG_LEVEL=warn` leaves out the
// informational ones. What a command prints as its result (tables, --json,
// replay lines) is output, not log, and does not go through here. Long-running
// farm processes (`fuzzfarm worker`) log JSON lines instead (processLogger).
import { lineLogger, type Logger, type LogLevel } from "@fuzzfarm/logging";

/** A logger printing each event's message on `err`, after `prefix` ("coordinator: "). */
export function cliLogger(err: { write(s: string): unknown }, level: LogLevel, prefix = ""): Logger {
  return lineLogger((l) => err.write(`${prefix}${l}\n`), level);
}
