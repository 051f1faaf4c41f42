// The level names a logger accepts (pino's, plus "silent"), for config
// schemas and for checking a level given on the command line.
import type { Logger } from "pino";

export type { Logger };

/** pino's levels, most severe first, and "silent" (nothing). */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const isLogLevel = (s: unknown): s is LogLevel => typeof s === "string" && (LOG_LEVELS as readonly string[]).includes(s);
