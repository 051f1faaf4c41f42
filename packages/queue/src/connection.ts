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

/**
 * Throws FF_ERR_REDIS_DOWN with one line if Redis does not answer within `timeoutMs`, FF_ERR_CONFIG if it wants a
 * password the URL does not carry (NOAUTH) or refuses the URL's credentials (WRONGPASS).
 */
export async function pingRedis(url: string, timeoutMs = 3000): Promise<void> {
  const r = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // An authentication error arrives as an 'error' event; connect() then rejects with only "Connection is closed.".
  let refused: Error | undefined;
  r.on("error", (e: Error) => {
    if (/^(NOAUTH|WRONGPASS)\b/.test(e.message)) refused = e;
  });
  try {
    await r.connect();
    await r.ping();
  } catch (e) {
    const host = redisHost(url);
    const why = refused?.message ?? (e as Error).message;
    if (why.startsWith("NOAUTH"))
      throw new FuzzFarmError("FF_ERR_CONFIG", `Redis at ${host} requires a password: set REDIS_URL=redis://:PASSWORD@${host} (or FUZZFARM_REDIS_URL_FILE, a file holding that URL)`);
    if (why.startsWith("WRONGPASS"))
      throw new FuzzFarmError("FF_ERR_CONFIG", `Redis at ${host} refuses the user name or password of the Redis URL (WRONGPASS)`);
    throw new FuzzFarmError("FF_ERR_REDIS_DOWN", `Redis at ${host} does not answer: ${(e as Error).message}`);
  } finally {
    r.disconnect();
  }
}
