// The coordinator process's logger: pino, one JSON line per event on stderr
// (for log collectors: level, time, and the campaignId / jobId / workerId the
// event concerns); on a terminal, pino-pretty renders the same events for
// people. pino-pretty is loaded only then.
import { pino, type Logger } from "pino";

/** A logger writing to stderr (fd 2). */
export async function processLogger(name: string): Promise<Logger> {
  const fd = 2;
  if (process.stderr.isTTY) {
    const { default: pretty } = await import("pino-pretty");
    return pino({ name }, pretty({ destination: fd, sync: true }));
  }
  return pino({ name }, pino.destination({ dest: fd, sync: true }));
}
