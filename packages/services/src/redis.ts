// Make sure Redis answers: if it does not and the URL points at this machine,
// start `redis-server` from PATH with its data under <dataDir>/redis
// (installing Debian's package first when allowed and root). npm has no Redis
// server, so without root and without one installed, the error says what to do.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { FuzzFarmError, oneLine } from "@fuzzfarm/protocol";
import { pingRedis } from "@fuzzfarm/queue";
import { which } from "./which";
import { aptInstall, canAptInstall } from "./install";
import { isLocal, waitFor, type EnsureOptions, type EnsureResult } from "./common";

export async function ensureRedis(url: string, o: EnsureOptions): Promise<EnsureResult> {
  try {
    await pingRedis(url, 1500);
    return { started: false, how: "already running" };
  } catch (first) {
    const u = new URL(url);
    if (!isLocal(u.hostname)) throw first;
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
    mkdirSync(dir, { recursive: true });
    const port = u.port || "6379";
    const r = spawnSync(bin, ["--daemonize", "yes", "--bind", "127.0.0.1", "--port", port, "--dir", dir, "--save", "", "--appendonly", "no", "--logfile", join(dir, "redis.log")], { encoding: "utf8" });
    if (r.status !== 0) throw new FuzzFarmError("FF_ERR_SERVICE_START", `could not start redis-server: ${(r.stderr || r.stdout).trim().split("\n")[0]}`);
    await waitFor(() => pingRedis(url, 500), 10_000).catch((e) => {
      throw new FuzzFarmError("FF_ERR_SERVICE_START", `started redis-server but it does not answer: ${oneLine(e)}`);
    });
    return { started: true, how: `started ${bin} on port ${port} (data in ${dir})` };
  }
}
