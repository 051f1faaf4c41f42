// @fuzzfarm/logging: the farm's loggers, all pino (the logger fastify speaks).
// One event per call: a level, a message and the ids it concerns (campaignId,
// jobId, workerId, bucketId, engine) as fields beside it. Packages take a
// `Logger` in their options; apps make one here:
// - `processLogger`: a process's own log (coordinator, worker, dashboard):
//   one JSON line per event on stderr, rendered by pino-pretty when stderr is
//   a terminal;
// - `lineLogger`: each event's message as one plain line, for commands whose
//   log lines people read among other output (`fuzzfarm fuzz`, `up`, `ci`);
// - `silentLogger`: nothing (no logger given).
// `terminalText` shows a target's text (crash messages, stacks) on a terminal
// with its control bytes as visible escapes, never executed.
export { processLogger, lineLogger, silentLogger, type ProcessLoggerOptions } from "./loggers";
export { LOG_LEVELS, isLogLevel, type LogLevel, type Logger } from "./levels";
export { parseLogLine, type LogEvent } from "./parse";
export { terminalText, visibleControls } from "./terminal";
