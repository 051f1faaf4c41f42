// Worker heartbeats live in Redis (workers never touch the database); the
// coordinator copies them into PostgreSQL for the dashboard.
import type { Redis } from "ioredis";
import type { Heartbeat } from "@fuzzfarm/protocol";

export type { Heartbeat };


const key = (prefix: string) => `${prefix}:workers`;

/** Record a heartbeat; entries older than `ttlMs` are dropped on read. */
export async function publishHeartbeat(redis: Redis, prefix: string, hb: Heartbeat): Promise<void> {
  await redis.hset(key(prefix), hb.id, JSON.stringify(hb));
}

export async function removeHeartbeat(redis: Redis, prefix: string, id: string): Promise<void> {
  await redis.hdel(key(prefix), id);
}

export async function readHeartbeats(redis: Redis, prefix: string, ttlMs = 60_000): Promise<Heartbeat[]> {
  const all = await redis.hgetall(key(prefix));
  const now = Date.now();
  const out: Heartbeat[] = [];
  const stale: string[] = [];
  for (const [id, raw] of Object.entries(all)) {
    try {
      const hb = JSON.parse(raw) as Heartbeat;
      if (now - hb.at <= ttlMs) out.push(hb);
      else stale.push(id);
    } catch {
      stale.push(id);
    }
  }
  if (stale.length) await redis.hdel(key(prefix), ...stale);
  return out;
}
