// Live updates: a server-sent event stream of farm events. One Redis
// subscriber per app feeds the in-process bus (plugins/services.ts); each
// open stream forwards bus events as `event: farm`. Keep-alive comments stop
// proxies from closing idle streams. Events are refresh hints; pages fetch
// the data itself. Streams are long-lived, so they are capped per client
// address and in total (429 past either cap): a page that opens them in a
// loop cannot hold the process's sockets.
import type { FastifyInstance } from "fastify";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import type { LiveEvent } from "../../plugins/services";

export default async function eventRoutes(app: FastifyInstance) {
  const keepAliveMs = app.ff.opts.sseKeepAliveMs ?? 15_000;
  const maxPerClient = app.ff.opts.sseMaxPerClient ?? 8;
  const maxTotal = app.ff.opts.sseMaxTotal ?? 200;
  const perClient = new Map<string, number>();
  let total = 0;
  app.get("/api/events", {
    schema: {
      tags: ["events"],
      summary: "Server-sent events: `farm` events (result, campaign, bucket, workers) as JSON",
      produces: ["text/event-stream"],
    },
    handler: (req, reply) => {
      const client = req.ip;
      const mine = perClient.get(client) ?? 0;
      if (mine >= maxPerClient) throw new FuzzFarmError("FF_ERR_TOO_MANY", `at most ${maxPerClient} live-event streams per client`);
      if (total >= maxTotal) throw new FuzzFarmError("FF_ERR_TOO_MANY", `at most ${maxTotal} live-event streams in total`);
      perClient.set(client, mine + 1);
      total++;
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
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        total--;
        const left = (perClient.get(client) ?? 1) - 1;
        if (left > 0) perClient.set(client, left);
        else perClient.delete(client);
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
