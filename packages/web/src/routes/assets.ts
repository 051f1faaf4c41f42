// The dashboard's own static files (app.js, app.css, favicon.svg), read once at start.
import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";

const FILES: Record<string, string> = { "app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8", "favicon.svg": "image/svg+xml" };

export default async function assetRoutes(app: FastifyInstance) {
  const content = new Map(Object.keys(FILES).map((name) => [name, readFileSync(new URL(`../../public/${name}`, import.meta.url))]));
  app.get("/assets/:name", {
    schema: { hide: true, params: { type: "object", properties: { name: { type: "string", enum: Object.keys(FILES) } } } },
    handler: async (req, reply) => {
      const { name } = req.params as { name: string };
      return reply.type(FILES[name]!).header("cache-control", "no-cache").send(content.get(name));
    },
  });
}
