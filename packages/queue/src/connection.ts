// Redis connections for BullMQ. Workers need maxRetriesPerRequest: null
// (BullMQ blocks on Redis); the start-up ping uses a connection that gives up
// quickly so a dead Redis is one clear line, not an endless retry loop.
import { Redis, type RedisOptions } from "ioredis";
import { FuzzFarmError } from "@fuzzfarm/protocol";

export interface RedisConfig {
  /** redis:// URL. */
  url: string;
  /** Key prefix of every FuzzFarm queue; tests use a unique one. Default "fuzzfarm". */
  prefix?: string;
}

export function redisHost(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 6379}`;
  } catch {
    return url;
  }
}

export function connect(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, ...extra });
}

/** Throws FF_ERR_REDIS_DOWN with one line if Redis does not answer within `timeoutMs`. */
export async function pingRedis(url: string, timeoutMs = 3000): Promise<void> {
  const r = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  r.on("error", () => {});
  try {
    await r.connect();
    await r.ping();
  } catch (e) {
    throw new FuzzFarmError("FF_ERR_REDIS_DOWN", `Redis at ${redisHost(url)} does not answer: ${(e as Error).message}`);
  } finally {
    r.disconnect();
  }
}
