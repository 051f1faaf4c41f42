// Options of `buildApp`. The app never reads process.env: the coordinator /
// CLI parses its config once and passes the values here.
import type { Db } from "@fuzzfarm/db";
import type { FarmQueues } from "@fuzzfarm/queue";
import type { CheckRequest } from "@fuzzfarm/github";
import type { Logger } from "@fuzzfarm/logging";

/** GitHub App mode: the webhook endpoint POST /api/github/webhook. */
export interface GitHubWebhookOptions {
  /** The App's webhook secret (X-Hub-Signature-256 is checked with it). */
  webhookSecret: string;
  /** Starts the campaign and its check run for a verified, first-seen delivery; resolves once the campaign exists. */
  onCheckRequest(req: CheckRequest): Promise<{ campaignId: string; checkRunId?: number }>;
  /** How long a delivery id and a body digest are remembered (replays refused), seconds; default 604 800 (7 days). */
  deliveryTtlSeconds?: number;
  /**
   * Largest webhook body accepted, bytes; default 1 MiB (GitHub's pull_request and check_suite payloads are tens of
   * kB; GitHub itself caps at 25 MB). Larger: 413 before the body is read (Content-Length), or as soon as a streamed
   * body passes it.
   */
  maxBodyBytes?: number;
}

/** A campaign a CI client asks for (POST /api/ci/campaigns), validated by the route's schema. */
export interface CiCampaignRequest {
  target: { name: string; path: string; version?: string };
  engine: "input" | "node" | "wasm";
  options: Record<string, unknown>;
  /** Campaign length, seconds. */
  seconds: number;
  /** Work per job, seconds; the coordinator's default when absent. */
  jobSeconds?: number;
}

/** The CI API (/api/ci/*): `fuzzfarm ci --farm URL` starts a campaign on this farm and reads its verdict data. */
export interface CiApiOptions {
  /**
   * Directories CI campaigns' targets must lie under (symlinks resolved), the same rule and usually the same list
   * as the workers' FUZZFARM_TARGET_ROOTS. Required and non-empty: without roots the CI API answers 403 to every start.
   */
  targetRoots: string[];
  /** Creates the campaign (the coordinator's createCampaign: options validated, target upserted); resolves with its id. */
  startCampaign(c: CiCampaignRequest): Promise<{ id: string }>;
  /** Longest campaign a CI client may ask for, seconds; default 86 400 (1 day). */
  maxSeconds?: number;
}

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
  /**
   * The app's logger (pino, e.g. @fuzzfarm/logging processLogger): request completions at debug, 5xx responses at
   * warn, unexpected errors at error, each with its reqId. `true`: fastify's own logger on stdout. Default false: no log.
   */
  logger?: Logger | boolean;
  /** Lifetime of a dashboard login session, seconds; default 43 200 (12 h). */
  sessionTtlSeconds?: number;
  /** Mark the session cookie `Secure` (serve over HTTPS); default false. */
  secureCookies?: boolean;
  /** Interval of SSE keep-alive comments, ms; default 15 000. */
  sseKeepAliveMs?: number;
  /** Open live-event streams allowed per client address; default 8. */
  sseMaxPerClient?: number;
  /** Open live-event streams allowed in total; default 200. */
  sseMaxTotal?: number;
  /**
   * Host names (without port) the dashboard answers to; requests naming any
   * other Host get 421, which defeats DNS rebinding. `localhost`,
   * `127.0.0.1` and `[::1]` are always allowed; add the names and addresses
   * users type when the dashboard is bound to another interface. Default: loopback only.
   */
  allowedHosts?: string[];
  /** Reads (pages, JSON, metrics, live events) need the admin token or a login; set it when bound to a non-loopback address. Default false. */
  requireAuthForReads?: boolean;
  /** Let bull-board retry, promote and delete jobs (admin only). Default false: read-only. */
  queueBoardWritable?: boolean;
  /** Token of CI clients: valid only on /api/ci/* (the admin token is accepted there too). At least 16 characters. Default none. */
  ciToken?: string;
  /** The CI API (/api/ci/*). Default none: its routes answer 404. */
  ci?: CiApiOptions;
  /** GitHub App mode (webhook endpoint). Default none: the endpoint answers 404. */
  github?: GitHubWebhookOptions;
}
