// Live updates: a server-sent event stream of farm events. One Redis
// subscriber per app feeds the in-process bus (plugins/services.ts); each
// open stream forwards bus events as `event: farm`. Keep-alive comments stop
// proxies from closing idle streams. Events are refresh hints; pages fetch
// the data itself.
import type { FastifyInstance } from "fastify";
import type { LiveEvent } from "../../plugins/services";

export default async function eventRoutes(app: FastifyInstance) {
  const keepAliveMs = app.ff.opts.sseKeepAliveMs ?? 15_000;
  app.get("/api/events", {
    schema: {
      tags: ["events"],
      summary: "Server-sent events: `farm` events (result, campaign, bucket, workers) as JSON",
      produces: ["text/event-stream"],
    },
    handler: (req, reply) => {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        connection: "keep-alive",
        "x-content-type-options": "nosniff",
        "x-accel-buffering": "no",
      });
      res.write(`retry: 2000\n: connected\n\n`);
      const onEvent = (ev: LiveEvent) => res.write(`event: farm\ndata: ${JSON.stringify(ev)}\n\n`);
      const end = () => {
        clearInterval(ping);
        app.ff.bus.off("event", onEvent);
        app.ff.bus.off("close", end);
        res.end();
      };
      const ping = setInterval(() => res.write(`: ping\n\n`), keepAliveMs);
      app.ff.bus.on("event", onEvent);
      app.ff.bus.on("close", end);
      req.raw.on("close", end);
    },
  });
}
