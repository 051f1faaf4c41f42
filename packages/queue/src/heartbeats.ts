// Worker heartbeats live in Redis (workers never touch the database); the
// coordinator copies them into PostgreSQL for the dashboard.
import type { Redis } from "ioredis";
import { HeartbeatSchema, type Heartbeat } from "@fuzzfarm/protocol";

export type { Heartbeat };


const key = (prefix: string) => `${prefix}:workers`;

/** Record a heartbeat; entries older than `ttlMs` are dropped on read. */
export async function publishHeartbeat(redis: Redis, prefix: string, hb: Heartbeat): Promise<void> {
  await redis.hset(key(prefix), hb.id, JSON.stringify(hb));
}

export async function removeHeartbeat(redis: Redis, prefix: string, id: string): Promise<void> {
  await redis.hdel(key(prefix), id);
}

/**
 * Live heartbeats. Entries that are not JSON, do not fit the heartbeat
 * schema, are filed under another worker's id, or are older than `ttlMs`
 * are dropped (and deleted): the hash is writable by anything holding Redis
 * credentials, so one bad entry must not stop the supervisor or the pages.
 */
export async function readHeartbeats(redis: Redis, prefix: string, ttlMs = 60_000): Promise<Heartbeat[]> {
  const all = await redis.hgetall(key(prefix));
  const now = Date.now();
  const out: Heartbeat[] = [];
  const stale: string[] = [];
  for (const [id, raw] of Object.entries(all)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      stale.push(id);
      continue;
    }
    const hb = HeartbeatSchema.safeParse(parsed);
    if (hb.success && hb.data.id === id && now - hb.data.at <= ttlMs) out.push(hb.data);
    else stale.push(id);
  }
  if (stale.length) await redis.hdel(key(prefix), ...stale);
  return out;
}
