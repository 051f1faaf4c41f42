// The password of a Redis that FuzzFarm started itself. `fuzzfarm up` (the
// services package) generates it when it starts a local redis-server and
// keeps it in <dataDir>/redis/password (mode 0600); every FuzzFarm process of
// this machine that shares the data directory finds it here, so nobody types
// it. A URL that carries credentials, or names another host, is left alone.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FuzzFarmError } from "@fuzzfarm/protocol";

/** Where the password of FuzzFarm's own local Redis is kept: `<dataDir>/redis/password`. */
export function redisPasswordFile(dataDir: string): string {
  return join(dataDir, "redis", "password");
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/**
 * `url` with the stored password of FuzzFarm's local Redis filled in, when
 * `url` points at this machine (127.0.0.1, localhost, ::1), carries no user
 * name or password, and `<dataDir>/redis/password` exists. Otherwise `url`
 * unchanged: an explicit password always wins, a remote Redis never gets it.
 */
export function withStoredRedisPassword(url: string, dataDir: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (!LOOPBACK.has(u.hostname.toLowerCase()) || u.username || u.password) return url;
  const file = redisPasswordFile(dataDir);
  if (!existsSync(file)) return url;
  let password: string;
  try {
    password = readFileSync(file, "utf8").trim();
  } catch (e) {
    throw new FuzzFarmError("FF_ERR_CONFIG", `cannot read the Redis password file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!password) return url;
  u.password = encodeURIComponent(password);
  return u.toString();
}
