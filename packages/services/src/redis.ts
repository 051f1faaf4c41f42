// Make sure Redis answers: if it does not and the URL points at this machine,
// start `redis-server` from PATH with its data under <dataDir>/redis
// (installing Debian's package first when allowed and root). npm has no Redis
// server, so without root and without one installed, the error says what to do.
//
// A Redis FuzzFarm starts requires a password: generated once, kept in
// <dataDir>/redis/password (0600; @fuzzfarm/config's loader reads the same
// file, so every process sharing the data directory finds it) and handed to
// redis-server in <dataDir>/redis/redis.conf (0600), never on its command
// line, where `ps` would show it. Log lines name the file, never the password.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { redisPasswordFile } from "@fuzzfarm/config";
import { FuzzFarmError, oneLine } from "@fuzzfarm/protocol";
import { pingRedis, redisHost } from "@fuzzfarm/queue";
import { which } from "./which";
import { aptInstall, canAptInstall } from "./install";
import { isLocal, waitFor, type EnsureOptions, type EnsureResult } from "./common";

export interface RedisEnsureResult extends EnsureResult {
  /** The URL to connect with: the given one, with the password of FuzzFarm's local Redis filled in when it had none. */
  url: string;
}

export async function ensureRedis(url: string, o: EnsureOptions): Promise<RedisEnsureResult> {
  const u = new URL(url);
  const local = isLocal(u.hostname);
  const file = redisPasswordFile(o.dataDir);
  const explicit = u.username !== "" || u.password !== "";
  const stored = local && !explicit ? readPassword(file) : undefined;
  const effective = stored === undefined ? url : withPassword(u, stored);
  try {
    await pingRedis(effective, 1500);
    return { started: false, how: "already running", url: effective };
  } catch (first) {
    if ((first as FuzzFarmError).code === "FF_ERR_CONFIG") throw authError(first as FuzzFarmError, u, file, stored !== undefined, explicit);
    if (!local) throw first;
    let bin = which("redis-server", o.path);
    if (!bin && o.installPackages && canAptInstall(o.path)) {
      o.log?.("redis: redis-server is not installed; installing Debian's redis-server (apt-get)");
      const failed = aptInstall(["redis-server"]);
      if (failed) throw new FuzzFarmError("FF_ERR_SERVICE_START", `apt-get install redis-server failed: ${failed}`);
      bin = which("redis-server", o.path);
    }
    if (!bin)
      throw new FuzzFarmError(
        "FF_ERR_SERVICE_START",
        `Redis at ${u.host} does not answer and redis-server is not installed: apt-get install redis-server, or docker compose -f infra/docker-compose.yml up -d redis, or point --redis-url / REDIS_URL at a running Redis (npm ships no Redis server; \`fuzzfarm up\` run as root installs Debian's)`,
      );
    const dir = join(o.dataDir, "redis");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The URL's own password when it has one (the user chose it), else the stored one, else a new one.
    const password = u.password ? decodeURIComponent(u.password) : (stored ?? createPassword(file));
    const port = u.port || "6379";
    const conf = join(dir, "redis.conf");
    writePrivate(conf, redisConf({ dir, port, password }));
    const r = spawnSync(bin, [conf], { encoding: "utf8" });
    if (r.status !== 0) throw new FuzzFarmError("FF_ERR_SERVICE_START", `could not start redis-server: ${(r.stderr || r.stdout).trim().split("\n")[0]}`);
    const started = u.password ? url : withPassword(u, password);
    await waitFor(() => pingRedis(started, 500), 10_000).catch((e) => {
      throw new FuzzFarmError("FF_ERR_SERVICE_START", `started redis-server but it does not answer (log: ${join(dir, "redis.log")}): ${oneLine(e)}`);
    });
    const secret = u.password ? "the password of the Redis URL" : `password in ${file}`;
    return { started: true, how: `started ${bin} on port ${port} (data in ${dir}, ${secret})`, url: started };
  }
}

function withPassword(u: URL, password: string): string {
  const v = new URL(u.href);
  v.password = encodeURIComponent(password);
  return v.href;
}

/** The stored password, or undefined when there is no file. A file others may read is made private first. */
function readPassword(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    if (statSync(file).mode & 0o077) chmodSync(file, 0o600);
    return readFileSync(file, "utf8").trim() || undefined;
  } catch (e) {
    throw new FuzzFarmError("FF_ERR_SERVICE_START", `cannot read the Redis password file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** A new random password in `file` (created 0600, exclusively: of two processes starting together, one writes it). */
function createPassword(file: string): string {
  try {
    writeFileSync(file, randomBytes(32).toString("hex") + "\n", { flag: "wx", mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new FuzzFarmError("FF_ERR_SERVICE_START", `cannot create the Redis password file ${file}: ${(e as Error).message}`);
  }
  const password = readPassword(file);
  if (!password) throw new FuzzFarmError("FF_ERR_SERVICE_START", `the Redis password file ${file} is empty`);
  return password;
}

/** Replace `file` by a new one created with mode 0600 (a mode given to writeFileSync applies only when it creates). */
function writePrivate(file: string, text: string): void {
  rmSync(file, { force: true });
  writeFileSync(file, text, { flag: "wx", mode: 0o600 });
}

/** A redis.conf string value: double-quoted, backslashes and quotes escaped. */
const quote = (s: string) => `"${s.replace(/[\\"]/g, "\\$&")}"`;

function redisConf(o: { dir: string; port: string; password: string }): string {
  return [
    "# Written by FuzzFarm (packages/services) for the Redis it starts; holds the password: keep it 0600.",
    "daemonize yes",
    "bind 127.0.0.1",
    `port ${Number(o.port)}`,
    `dir ${quote(o.dir)}`,
    `pidfile ${quote(join(o.dir, "redis.pid"))}`,
    `logfile ${quote(join(o.dir, "redis.log"))}`,
    'save ""',
    "appendonly no",
    `requirepass ${quote(o.password)}`,
    "",
  ].join("\n");
}

/** One line saying which password to set, with the password file of FuzzFarm's own Redis where it applies. */
function authError(e: FuzzFarmError, u: URL, file: string, usedStored: boolean, explicit: boolean): FuzzFarmError {
  const host = redisHost(u.href);
  if (/requires a password/.test(e.message))
    return new FuzzFarmError(
      "FF_ERR_CONFIG",
      isLocal(u.hostname)
        ? `Redis at ${host} requires a password and none is known: set REDIS_URL=redis://:PASSWORD@${host}, or put the password in ${file}`
        : e.message,
    );
  if (usedStored && !explicit)
    return new FuzzFarmError("FF_ERR_CONFIG", `Redis at ${host} refuses the password in ${file} (another Redis with another password answers there): set REDIS_URL=redis://:PASSWORD@${host}`);
  return e;
}
