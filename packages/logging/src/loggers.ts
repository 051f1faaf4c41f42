// Logger factories (see index.ts). pino-pretty is loaded only when a
// terminal will read the output, so a process logging JSON never loads it.
import { pino } from "pino";
import type { Logger, LogLevel } from "./levels";
import { terminalText } from "./terminal";

export interface ProcessLoggerOptions {
  /** The process's name, a field of every event ("coordinator", "worker"). */
  name: string;
  /** Least severe level written. Default "info". */
  level?: LogLevel;
  /** Where events go: a file descriptor. Default 2 (stderr): stdout stays free for a command's own output. */
  fd?: number;
  /** Human-readable (pino-pretty) instead of JSON lines. Default: when `fd` is a terminal. */
  pretty?: boolean;
}

/** A process's logger: one JSON line per event (level, time, pid, hostname, name, ids, msg), pretty on a terminal. */
export async function processLogger(o: ProcessLoggerOptions): Promise<Logger> {
  const fd = o.fd ?? 2;
  const level = o.level ?? "info";
  const pretty = o.pretty ?? (fd === 2 ? process.stderr.isTTY : fd === 1 ? process.stdout.isTTY : false);
  if (pretty) {
    const { default: prettyStream } = await import("pino-pretty");
    // messages carry targets' text (job errors): their control bytes are shown, not sent to the terminal
    return pino({ name: o.name, level }, prettyStream({ destination: fd, sync: true, messageFormat: (log, key) => terminalText(String(log[key] ?? "")) }));
  }
  // sync: an event is written before the call returns, so a process that exits right after loses none
  return pino({ name: o.name, level }, pino.destination({ dest: fd, sync: true }));
}

/** A logger that hands each event's message to `log`, one line per event, nothing else. Default level "info". */
export function lineLogger(log: (line: string) => void, level: LogLevel = "info"): Logger {
  return pino(
    { level, base: undefined, timestamp: false },
    {
      write(json: string) {
        const { msg } = JSON.parse(json) as { msg?: string };
        if (msg !== undefined) log(terminalText(msg));
      },
    },
  );
}

/** A logger that drops everything. */
export const silentLogger = (): Logger => pino({ level: "silent" });
