// Farm events over Redis pub/sub: the coordinator announces what changed
// (a result applied, a campaign started or ended, a bucket created or
// triaged); the dashboard fans them out to browsers. Events are hints to
// refresh, never the source of truth (that is PostgreSQL).
import type { Redis } from "ioredis";

export type FarmEvent =
  | { type: "result"; campaignId: string; jobId: string; execs: number; newCoverage: number; newNovelty: number; newBuckets: string[] }
  | { type: "campaign"; campaignId: string; status: string }
  | { type: "bucket"; bucketId: string; action: string }
  | { type: "workers"; count: number };

const channel = (prefix: string) => `${prefix}:events`;

export async function publishEvent(redis: Redis, prefix: string, ev: FarmEvent): Promise<void> {
  await redis.publish(channel(prefix), JSON.stringify({ ...ev, at: Date.now() }));
}

/** Subscribe on a dedicated connection (a subscribed ioredis connection can do nothing else). Returns an unsubscribe. */
export async function subscribeEvents(subscriber: Redis, prefix: string, onEvent: (ev: FarmEvent & { at: number }) => void): Promise<() => Promise<void>> {
  const ch = channel(prefix);
  const handler = (c: string, msg: string) => {
    if (c !== ch) return;
    try {
      onEvent(JSON.parse(msg));
    } catch {
      // A malformed event is dropped: events are only hints.
    }
  };
  subscriber.on("message", handler);
  await subscriber.subscribe(ch);
  return async () => {
    subscriber.off("message", handler);
    await subscriber.unsubscribe(ch);
  };
}
