// Workers: the fleet (read), and the endpoints of HTTP-reporting workers,
// which present the worker token: a heartbeat, and a job result that goes to
// the results queue exactly as a BullMQ worker would publish it.
import type { FastifyInstance } from "fastify";
import { parseResult, RESULT_LIMITS } from "@fuzzfarm/protocol";
import { publishHeartbeat, publishResult } from "@fuzzfarm/queue";
import { fleet } from "./fleet";
import { readErrors, writeErrors } from "../../schemas";

export default async function workerRoutes(app: FastifyInstance) {
  app.get("/api/workers", {
    schema: {
      tags: ["workers"],
      summary: "The worker fleet (seen in the last 10 minutes)",
      response: { 200: { type: "object", properties: { items: { type: "array", items: { $ref: "WorkerRow#" } } } }, ...readErrors },
    },
    handler: async () => ({ items: await fleet(app.ff) }),
  });

  app.post("/api/workers/heartbeat", {
    preHandler: app.requireWorker,
    config: { auth: "worker" },
    bodyLimit: 16 * 1024,
    schema: {
      tags: ["workers"],
      summary: "Heartbeat of an HTTP-reporting worker (worker token)",
      security: [{ workerToken: [] }],
      body: {
        type: "object",
        required: ["id", "host", "pid", "version", "engines"],
        additionalProperties: false,
        properties: {
          id: { type: "string", pattern: "^[A-Za-z0-9_.:@-]{1,128}$" },
          host: { type: "string", maxLength: 255 },
          pid: { type: "integer", minimum: 0 },
          version: { type: "string", maxLength: 64 },
          engines: { type: "array", maxItems: 16, items: { type: "string", maxLength: 32 } },
          currentJobId: { type: ["string", "null"], maxLength: 200 },
          execsPerSec: { type: "number", minimum: 0 },
          jobsDone: { type: "integer", minimum: 0 },
        },
      },
      response: { 200: { type: "object", properties: { ok: { type: "boolean" } } }, ...writeErrors },
    },
    handler: async (req) => {
      const b = req.body as { id: string; host: string; pid: number; version: string; engines: string[]; currentJobId?: string | null; execsPerSec?: number; jobsDone?: number };
      await publishHeartbeat(app.ff.redis, app.ff.prefix, {
        id: b.id, host: b.host, pid: b.pid, version: b.version, engines: b.engines,
        currentJobId: b.currentJobId ?? null, execsPerSec: b.execsPerSec ?? 0, jobsDone: b.jobsDone ?? 0, at: Date.now(),
      });
      return { ok: true };
    },
  });

  app.post("/api/results", {
    preHandler: app.requireWorker,
    config: { auth: "worker" },
    bodyLimit: RESULT_LIMITS.resultBytes,
    schema: {
      tags: ["workers"],
      summary: "Submit a job result (worker token); validated by the protocol schema, queued for the coordinator",
      security: [{ workerToken: [] }],
      body: { type: "object", additionalProperties: true, description: "a JobResult (see @fuzzfarm/protocol)" },
      response: { 202: { type: "object", properties: { queued: { type: "string" } } }, ...writeErrors },
    },
    handler: async (req, reply) => {
      const result = parseResult(req.body);
      await publishResult(app.ff.queues, result);
      return reply.status(202).send({ queued: result.jobId });
    },
  });
}
