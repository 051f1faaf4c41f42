// A catalogue of real event races of published npm packages, as the
// real-bug benchmark keeps them (bench/real-bugs/): each bug is a folder
// <dir>/<id>/ with a package.json whose dependencies pin the buggy and the
// fixed release as npm aliases (`<pkg>-buggy`, `<pkg>-fixed`), a driver.js and
// a BUG.md. The releases are installed from the npm registry into
// <cacheDir>/<id>/, never vendored; an install is redone only when the bug's
// package.json changed. Shared by the benchmark's scripts and engine-node's
// test of the benchmark through @fuzzfarm/engine-node/testing, so neither
// imports the other's files.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isNodeStrategy, type NodeStrategy } from "@fuzzfarm/protocol";

export interface RealBug {
  id: string;
  dir: string;
  driver: string;
  /** Alias → `npm:pkg@version`. */
  dependencies: Record<string, string>;
  /** What the driver exercises (fs, timers, net, http, streams, child, promises, worker). */
  areas: string[];
}

/** Every bug folder of `dir` (one with a package.json and a driver.js), ids containing `only` (comma-separated list allowed; "" = all). */
export function realBugs(dir: string, only = ""): RealBug[] {
  const wanted = only ? only.split(",").filter(Boolean) : [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "package.json")) && existsSync(join(dir, d.name, "driver.js")))
    .map((d) => {
      const pj = JSON.parse(readFileSync(join(dir, d.name, "package.json"), "utf8")) as {
        dependencies?: Record<string, string>; fuzzfarm?: { areas?: string[] };
      };
      return {
        id: d.name, dir: join(dir, d.name), driver: join(dir, d.name, "driver.js"),
        dependencies: pj.dependencies ?? {}, areas: pj.fuzzfarm?.areas ?? [],
      };
    })
    .filter((b) => wanted.length === 0 || wanted.some((w) => b.id.includes(w)))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** The install cache's manifest for a bug: what npm installs there. */
function manifest(bug: RealBug): string {
  return JSON.stringify({ name: `real-bug-${bug.id}`, private: true, dependencies: bug.dependencies }, null, 2) + "\n";
}

/** The default strategy of `fuzzfarm node`, read from its help text ("--strategy S ... (default: mix)"). */
export function cliDefaultStrategy(help: string): NodeStrategy {
  const m = /--strategy\s+S[^\n]*\(default:\s*([\w-]+)\)/.exec(help);
  return m && isNodeStrategy(m[1]!) ? m[1] : "mix";
}

export interface InstallResult { id: string; installed: boolean; ok: boolean; message: string }

/**
 * Install the bug's pinned releases from npm into `<cacheDir>/<id>/` unless
 * it already holds exactly them. Runs `npm install` under the repo's npm lock
 * (/tmp/fuzzfarm-npm.lock) when flock exists.
 */
export function installBug(bug: RealBug, cacheDir: string, log: (s: string) => void = () => {}): InstallResult {
  const dir = join(cacheDir, bug.id);
  const want = manifest(bug);
  const stamp = join(dir, ".installed.json");
  const aliasesPresent = Object.keys(bug.dependencies).every((a) => existsSync(join(dir, "node_modules", a, "package.json")));
  if (aliasesPresent && existsSync(stamp) && readFileSync(stamp, "utf8") === want) return { id: bug.id, installed: false, ok: true, message: "cached" };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), want);
  log(`installing ${bug.id}: ${Object.values(bug.dependencies).join(", ")}`);
  const npmArgs = ["install", "--no-audit", "--no-fund", "--no-package-lock", "--ignore-scripts", "--loglevel=error", "--prefix", dir];
  const hasFlock = spawnSync("flock", ["--version"], { stdio: "ignore" }).status === 0;
  const r = hasFlock
    ? spawnSync("flock", ["/tmp/fuzzfarm-npm.lock", "npm", ...npmArgs], { cwd: dir, encoding: "utf8" })
    : spawnSync("npm", npmArgs, { cwd: dir, encoding: "utf8" });
  if (r.status !== 0) return { id: bug.id, installed: false, ok: false, message: (r.stderr || r.stdout || String(r.error)).trim().split("\n").slice(-3).join(" | ") };
  writeFileSync(stamp, want);
  return { id: bug.id, installed: true, ok: true, message: "installed" };
}
