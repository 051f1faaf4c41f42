// The coordinator logs through pino, the logger fastify speaks: one event per
// call, with a level and the ids it concerns (campaignId, jobId, workerId,
// bucketId) as fields beside the message. Apps hand in their pino logger
// (@fuzzfarm/logging processLogger: JSON lines, pretty on a terminal). A
// caller that prints plain lines (the `log` option: `fuzzfarm fuzz` writes
// them to stderr) gets the message of each event, unchanged from the lines
// the coordinator wrote before.
export { lineLogger, silentLogger, type Logger } from "@fuzzfarm/logging";
