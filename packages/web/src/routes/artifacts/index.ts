// Artifact files kept on the coordinator's disk (<dataDir>/artifacts): inputs,
// traces, programs written by maintenance jobs. The requested path is
// attacker-controlled; resolveInside refuses anything outside the directory.
import { createReadStream } from "node:fs";
import { basename, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { resolveInside } from "../../internal/safe-path";
import { readErrors } from "../../schemas";

export default async function artifactRoutes(app: FastifyInstance) {
  const root = join(app.ff.opts.dataDir, "artifacts");
  app.get("/api/artifacts/*", {
    schema: {
      tags: ["buckets"],
      summary: "Download an artifact file from the coordinator's artifact directory",
      params: { type: "object", properties: { "*": { type: "string", maxLength: 1024 } } },
      produces: ["application/octet-stream"],
      response: { 200: { type: "string", format: "binary" }, ...readErrors },
    },
    handler: async (req, reply) => {
      const rel = (req.params as { "*": string })["*"];
      const file = await resolveInside(root, rel);
      const name = basename(file).replace(/[^A-Za-z0-9_.-]/g, "_");
      return reply.header("content-type", "application/octet-stream").header("content-disposition", `attachment; filename="${name}"`).send(createReadStream(file));
    },
  });
}
