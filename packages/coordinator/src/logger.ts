// The coordinator logs through pino, the logger fastify speaks: one event per
// call, with a level and the ids it concerns (campaignId, jobId, workerId,
// bucketId) as fields beside the message. Apps hand in their pino logger
// (JSON lines, pretty on a terminal). A caller that prints plain lines (the
// `log` option: `fuzzfarm fuzz` writes them to stderr) gets the message of
// each event, unchanged from the lines the coordinator wrote before.
import { pino, type Logger } from "pino";

export type { Logger };

/** A pino logger that hands each event's message to `log`, one line per event. Default level "info". */
export function lineLogger(log: (line: string) => void, level: pino.LevelWithSilent = "info"): Logger {
  return pino(
    { level, base: undefined, timestamp: false },
    {
      write(json: string) {
        const { msg } = JSON.parse(json) as { msg?: string };
        if (msg !== undefined) log(msg);
      },
    },
  );
}

/** A logger that drops everything (no `logger` and no `log` given). */
export const silentLogger = (): Logger => pino({ level: "silent" });
