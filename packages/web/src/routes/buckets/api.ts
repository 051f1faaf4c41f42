// JSON API of buckets and reports (reads), reproducer downloads, and the
// triage actions. Triage goes through @fuzzfarm/db's mergeBuckets /
// splitBucket / setBucketStatus / addBucketNote, the same functions the CLI
// calls, then announces a `bucket` farm event so open dashboards refresh.
import type { FastifyInstance, FastifyReply } from "fastify";
import {
  BUCKET_SORTS,
  BUCKET_STATUSES,
  MAX_NOTE_LENGTH,
  addBucketNote,
  bucketArtifact,
  bucketDetail,
  bucketReports,
  getReport,
  mergeBuckets,
  queryBuckets,
  setBucketStatus,
  similarBuckets,
  splitBucket,
  type BucketQuery,
  type BucketStatus,
} from "@fuzzfarm/db";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { actorOf } from "../../plugins/auth";
import { Id, IdParams, PageQuery, pageOf, readErrors, writeErrors } from "../../schemas";

export const BUCKET_KINDS = ["uncaught", "rejection", "exit", "signal", "oom", "hang", "oracle"] as const;

export const BucketListQuery = {
  type: "object",
  properties: {
    kind: { type: "string", maxLength: 32 },
    status: { type: "string", enum: [...BUCKET_STATUSES] },
    targetId: Id,
    campaignId: Id,
    version: { type: "string", maxLength: 200 },
    q: { type: "string", maxLength: 200 },
    sort: { type: "string", enum: [...BUCKET_SORTS], default: "count" },
    order: { type: "string", enum: ["asc", "desc"], default: "desc" },
    ...PageQuery,
  },
} as const;

const ok = { type: "object", properties: { ok: { type: "boolean" } } } as const;

function download(reply: FastifyReply, bytes: Buffer, filename: string) {
  return reply
    .header("content-type", "application/octet-stream")
    .header("content-disposition", `attachment; filename="${filename.replace(/[^A-Za-z0-9_.-]/g, "_")}"`)
    .send(bytes);
}

export default async function bucketApi(app: FastifyInstance) {
  const db = app.ff.db;

  app.get("/api/buckets", {
    schema: {
      tags: ["buckets"],
      summary: "Crash buckets: filter, sort and paginate on the server",
      querystring: BucketListQuery,
      response: { 200: pageOf({ $ref: "BucketRow#" }), ...readErrors },
    },
    handler: async (req) => queryBuckets(db, req.query as BucketQuery),
  });

  app.get("/api/buckets/:id", {
    schema: {
      tags: ["buckets"],
      summary: "One bucket: signature, frames, reproduction facts, triage history",
      params: IdParams,
      response: { 200: { type: "object", additionalProperties: true }, ...readErrors },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      const [b, similar] = await Promise.all([bucketDetail(db, id), similarBuckets(db, id, 20)]);
      return { ...b, similar };
    },
  });

  app.get("/api/buckets/:id/reports", {
    schema: {
      tags: ["buckets"],
      summary: "Reports of a bucket, oldest first, paginated",
      params: IdParams,
      querystring: { type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: 200, default: 20 }, offset: PageQuery.offset } },
      response: { 200: pageOf({ $ref: "Report#" }), ...readErrors },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      await bucketDetail(db, id);
      return bucketReports(db, id, req.query as { limit: number; offset: number });
    },
  });

  app.get("/api/reports/:id", {
    schema: { tags: ["buckets"], summary: "One crash report", params: IdParams, response: { 200: { $ref: "Report#" }, ...readErrors } },
    handler: async (req) => getReport(db, (req.params as { id: string }).id),
  });

  app.get("/api/buckets/:id/reproducer", {
    schema: {
      tags: ["buckets"],
      summary: "Download the bucket's reproducer (original, or minimized)",
      params: IdParams,
      querystring: { type: "object", properties: { variant: { type: "string", enum: ["original", "minimized"], default: "original" } } },
      produces: ["application/octet-stream"],
      response: { 200: { type: "string", format: "binary" }, ...readErrors },
    },
    handler: async (req, reply) => {
      const { id } = req.params as { id: string };
      const { variant } = req.query as { variant: "original" | "minimized" };
      const bytes = await bucketArtifact(db, id, variant);
      const head = bytes.subarray(0, 64).toString("utf8").trimStart();
      const ext = head.startsWith("{") || head.startsWith("[") ? "json" : /^(;;[^\n]*\n\s*)*\(module\b/.test(head) ? "wat" : "bin";
      return download(reply, bytes, `${id}-${variant}.${ext}`);
    },
  });

  // ------------------------------------------------------------ triage

  const announce = (bucketId: string, action: string) => app.ff.publish({ type: "bucket", bucketId, action }).catch((err) => app.log.warn({ err, bucketId, action }, `event bucket ${action} not published (dashboards refresh on the next one): ${(err as Error).message}`));

  app.post("/api/buckets/:id/status", {
    bodyLimit: 64 * 1024,
    preHandler: app.requireWrite,
    schema: {
      tags: ["triage"],
      summary: "Set a bucket's status",
      security: [{ adminToken: [] }, { session: [] }],
      params: IdParams,
      body: {
        type: "object",
        required: ["status"],
        additionalProperties: false,
        properties: { status: { type: "string", enum: [...BUCKET_STATUSES] }, version: { type: "string", maxLength: 200, description: "for fixed: the version with the fix" } },
      },
      response: { 200: { type: "object", properties: { from: { type: "string" }, to: { type: "string" } } }, ...writeErrors },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      const b = req.body as { status: BucketStatus; version?: string };
      const r = await setBucketStatus(db, { bucketId: id, status: b.status, actor: actorOf(req), ...(b.version ? { version: b.version } : {}) });
      await announce(id, "status");
      return r;
    },
  });

  app.post("/api/buckets/:id/merge", {
    bodyLimit: 64 * 1024,
    preHandler: app.requireWrite,
    schema: {
      tags: ["triage"],
      summary: "Merge other buckets into this one",
      security: [{ adminToken: [] }, { session: [] }],
      params: IdParams,
      body: { type: "object", required: ["from"], additionalProperties: false, properties: { from: { type: "array", minItems: 1, maxItems: 200, items: Id } } },
      response: { 200: { type: "object", properties: { into: { type: "string" }, from: { type: "array", items: { type: "string" } } } }, ...writeErrors },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      const { from } = req.body as { from: string[] };
      await mergeBuckets(db, { into: id, from, actor: actorOf(req) });
      await announce(id, "merged");
      return { into: id, from };
    },
  });

  app.post("/api/buckets/:id/split", {
    bodyLimit: 64 * 1024,
    preHandler: app.requireWrite,
    schema: {
      tags: ["triage"],
      summary: "Move reports of this bucket into a new bucket",
      security: [{ adminToken: [] }, { session: [] }],
      params: IdParams,
      body: {
        type: "object",
        required: ["reportIds"],
        additionalProperties: false,
        properties: { reportIds: { type: "array", minItems: 1, maxItems: 5000, items: Id }, title: { type: "string", maxLength: 300 } },
      },
      response: { 200: { type: "object", properties: { newBucketId: { type: "string" }, url: { type: "string" } } }, ...writeErrors },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      const { reportIds, title } = req.body as { reportIds: string[]; title?: string };
      const { newBucketId } = await splitBucket(db, { bucketId: id, reportIds, actor: actorOf(req), ...(title ? { title } : {}) });
      await announce(newBucketId, "split");
      return { newBucketId, url: `/buckets/${encodeURIComponent(newBucketId)}` };
    },
  });

  app.post("/api/buckets/:id/notes", {
    bodyLimit: 64 * 1024,
    preHandler: app.requireWrite,
    schema: {
      tags: ["triage"],
      summary: "Add a note to a bucket",
      security: [{ adminToken: [] }, { session: [] }],
      params: IdParams,
      body: { type: "object", required: ["note"], additionalProperties: false, properties: { note: { type: "string", minLength: 1, maxLength: MAX_NOTE_LENGTH } } },
      response: { 200: ok, ...writeErrors },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      const { note } = req.body as { note: string };
      if (!note.trim()) throw new FuzzFarmError("FF_ERR_VALIDATION", "a note cannot be empty");
      await addBucketNote(db, { bucketId: id, note, actor: actorOf(req) });
      await announce(id, "note");
      return { ok: true };
    },
  });
}
