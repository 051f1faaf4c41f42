// Options of `buildApp`. The app never reads process.env: the coordinator /
// CLI parses its config once and passes the values here.
import type { Db } from "@fuzzfarm/db";
import type { FarmQueues } from "@fuzzfarm/queue";

export interface BuildAppOptions {
  /** Database client (the caller owns it; the app never closes it). */
  db: Db;
  /** The farm's BullMQ queues (the caller owns them). */
  queues: FarmQueues;
  /** redis:// URL: the app opens one subscriber connection for live events and closes it on `app.close()`. */
  redisUrl: string;
  /** Key prefix of the farm in Redis (queues, events, sessions); usually `queues.prefix`. */
  prefix: string;
  /** Token for writes (triage actions, bull-board) and for logging into the pages. At least 16 characters. */
  adminToken: string;
  /** Token of HTTP-reporting workers (heartbeats, results). Without it the worker endpoints answer 401. */
  workerToken?: string;
  /** Data directory: artifact downloads are served from `<dataDir>/artifacts`, coverage reports are built under `<dataDir>/coverage-reports`. */
  dataDir: string;
  /** Fastify request logging; default false. */
  logger?: boolean;
  /** Lifetime of a dashboard login session, seconds; default 43 200 (12 h). */
  sessionTtlSeconds?: number;
  /** Mark the session cookie `Secure` (serve over HTTPS); default false. */
  secureCookies?: boolean;
  /** Interval of SSE keep-alive comments, ms; default 15 000. */
  sseKeepAliveMs?: number;
}
