// Reading events back: a parent process that shows its children's log lines
// (`fuzzfarm up` and its local workers) and tests that check them.

/** One event of a JSON-lines log: pino's numeric level, its message and its fields. */
export interface LogEvent {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** The event of one JSON log line, or null for a line that is not one (a plain line, a pretty line). */
export function parseLogLine(line: string): LogEvent | null {
  if (!line.startsWith("{")) return null;
  try {
    const e = JSON.parse(line) as unknown;
    if (!e || typeof e !== "object") return null;
    const { level, msg } = e as { level?: unknown; msg?: unknown };
    return typeof level === "number" && typeof msg === "string" ? (e as LogEvent) : null;
  } catch {
    // not JSON: a plain line
    return null;
  }
}
