// Shared services, decorated on the root instance as `app.ff`: the database,
// the queues, a Redis connection for commands (sessions, publishing) and an
// in-process bus fed by ONE Redis subscriber connection, which fans farm
// events out to every open SSE stream.
import { EventEmitter } from "node:events";
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import type { Db } from "@fuzzfarm/db";
import { connect, publishEvent, subscribeEvents, type FarmEvent, type FarmQueues } from "@fuzzfarm/queue";
import type { BuildAppOptions } from "../options";
import { StrategyYieldCache } from "../internal/yield-cache";

export type LiveEvent = FarmEvent & { at: number };

export interface WebContext {
  db: Db;
  queues: FarmQueues;
  /** Command connection (the queues' own). */
  redis: Redis;
  prefix: string;
  opts: Readonly<BuildAppOptions>;
  /** Emits "event" with a LiveEvent for every farm event published on Redis. */
  bus: EventEmitter;
  /** Incrementally maintained per-strategy yield of campaigns. */
  strategyYield: StrategyYieldCache;
  /** Publish a farm event (as the coordinator does), e.g. after a triage action. */
  publish(ev: FarmEvent): Promise<void>;
}

declare module "fastify" {
  interface FastifyInstance {
    ff: WebContext;
  }
}

async function servicesPlugin(app: FastifyInstance, opts: BuildAppOptions) {
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  const subscriber = connect(opts.redisUrl, { lazyConnect: false });
  subscriber.on("error", (err) => app.log.warn({ err }, "redis subscriber error"));
  const unsubscribe = await subscribeEvents(subscriber, opts.prefix, (ev) => bus.emit("event", ev));
  const redis = opts.queues.connection;
  app.decorate("ff", {
    db: opts.db,
    queues: opts.queues,
    redis,
    prefix: opts.prefix,
    opts: Object.freeze({ ...opts }),
    bus,
    strategyYield: new StrategyYieldCache(opts.db),
    publish: (ev: FarmEvent) => publishEvent(redis, opts.prefix, ev),
  });
  // Before the server stops: end open event streams, or close() would wait for them forever.
  app.addHook("preClose", async () => {
    bus.emit("close");
  });
  app.addHook("onClose", async () => {
    // closing: the connection is dropped next line either way, so a failed unsubscribe loses nothing
    await unsubscribe().catch(() => {});
    subscriber.disconnect();
  });
}

export default fp(servicesPlugin, { name: "ff-services" });
