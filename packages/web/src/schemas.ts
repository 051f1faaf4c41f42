// JSON schemas shared by the routes: they validate input (fastify + ajv),
// shape output (fast-json-stringify) and feed the OpenAPI document.
import { ERROR_CODES } from "@fuzzfarm/protocol";

export const ErrorResponse = {
  $id: "ErrorResponse",
  type: "object",
  description: "Every error: a stable code (see docs/errors.md) and a one-line message.",
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "statusCode"],
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_CODES) },
        message: { type: "string" },
        statusCode: { type: "integer" },
      },
    },
  },
  required: ["error"],
} as const;

const err = { $ref: "ErrorResponse#" } as const;
/** Error responses of a read route. */
export const readErrors = { 400: err, 404: err, 500: err, 503: err } as const;
/** Error responses of a write route. */
export const writeErrors = { 400: err, 401: err, 403: err, 404: err, 409: err, 500: err, 503: err } as const;

export const Id = { type: "string", pattern: "^[A-Za-z0-9_-]{1,128}$" } as const;
export const IdParams = { type: "object", required: ["id"], properties: { id: Id } } as const;

export const PageQuery = {
  limit: { type: "integer", minimum: 1, maximum: 500, default: 50 },
  offset: { type: "integer", minimum: 0, maximum: 10_000_000, default: 0 },
} as const;

export const pageOf = (items: object) =>
  ({
    type: "object",
    required: ["items", "total", "limit", "offset"],
    properties: { items: { type: "array", items }, total: { type: "integer" }, limit: { type: "integer" }, offset: { type: "integer" } },
  }) as const;

const dt = { type: "string", format: "date-time" } as const;
const dtN = { type: ["string", "null"], format: "date-time" } as const;
const strN = { type: ["string", "null"] } as const;

export const CampaignSummary = {
  $id: "CampaignSummary",
  type: "object",
  properties: {
    id: { type: "string" },
    targetId: { type: "string" },
    targetName: { type: "string" },
    targetVersion: { type: "string" },
    engine: { type: "string" },
    status: { type: "string", description: "running | completed | stopped | failed" },
    startedAt: dt,
    deadline: dt,
    endedAt: dtN,
    jobsDone: { type: "integer" },
    execs: { type: "number" },
    execsPerSec: { type: "number", description: "running: over the last minute; otherwise the lifetime average" },
    covered: { type: "integer" },
    coverageTotal: { type: "integer" },
    novelty: { type: "integer", description: "schedule / program novelty keys (race pairs, reads-from, outcomes)" },
    corpusSize: { type: "integer" },
    buckets: { type: "integer" },
    newBuckets: { type: "integer", description: "buckets with status new" },
  },
} as const;

export const BucketRow = {
  $id: "BucketRow",
  type: "object",
  properties: {
    id: { type: "string" },
    targetId: { type: "string" },
    targetName: { type: "string" },
    kind: { type: "string" },
    title: { type: "string" },
    signature: { type: "string" },
    status: { type: "string" },
    count: { type: "integer" },
    firstSeen: dt,
    lastSeen: dt,
    firstSeenVersion: strN,
    lastSeenVersion: strN,
    reproRuns: { type: "integer" },
    reproHits: { type: "integer" },
    reproRate: { type: ["number", "null"] },
    reproLabel: { type: "string" },
    hasMinimized: { type: "boolean" },
  },
} as const;

export const Report = {
  $id: "Report",
  type: "object",
  properties: {
    id: { type: "string" },
    bucketId: { type: "string" },
    campaignId: strN,
    jobId: strN,
    kind: { type: "string" },
    message: { type: "string" },
    stack: { type: "string" },
    signature: { type: "string" },
    targetVersion: strN,
    hits: { type: "integer" },
    artifact: { type: "object", additionalProperties: true },
    triage: { type: "object", additionalProperties: true },
    createdAt: dt,
  },
} as const;

export const QueueDepth = {
  type: "object",
  properties: { waiting: { type: "integer" }, active: { type: "integer" }, delayed: { type: "integer" }, failed: { type: "integer" }, completed: { type: "integer" } },
} as const;

export const WorkerRow = {
  $id: "WorkerRow",
  type: "object",
  properties: {
    id: { type: "string" },
    host: { type: "string" },
    pid: { type: "integer" },
    version: { type: "string" },
    engines: { type: "array", items: { type: "string" } },
    currentJobId: strN,
    execsPerSec: { type: "number" },
    jobsDone: { type: "integer" },
    lastHeartbeat: dt,
    live: { type: "boolean", description: "heartbeat seen in Redis within the last minute" },
  },
} as const;

export const sharedSchemas = [ErrorResponse, CampaignSummary, BucketRow, Report, WorkerRow];
