// Installs every binaryen release the benchmark needs into ./cache (gitignored),
// as npm aliases (`binaryen-98_0_0` -> binaryen@98.0.0), under the repository's
// npm lock. Already installed versions are kept.
//   node --import tsx bench/wasm-real-bugs/install.ts
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUGS, alias } from "./bugs";

export const CACHE = join(dirname(fileURLToPath(import.meta.url)), "cache");

export function versionDir(version: string): string {
  return join(CACHE, "node_modules", alias(version));
}

export function installReleases(versions = [...new Set(BUGS.flatMap((b) => [b.affected, b.fixed]))]): void {
  mkdirSync(CACHE, { recursive: true });
  const pkg = join(CACHE, "package.json");
  const deps: Record<string, string> = existsSync(pkg) ? (JSON.parse(readFileSync(pkg, "utf8")).dependencies ?? {}) : {};
  for (const v of versions) deps[alias(v)] = `npm:binaryen@${v}`;
  writeFileSync(pkg, JSON.stringify({ name: "wasm-real-bugs-cache", private: true, dependencies: deps }, null, 2) + "\n");
  const missing = versions.filter((v) => !existsSync(join(versionDir(v), "package.json")));
  if (!missing.length) return;
  process.stderr.write(`installing binaryen ${missing.join(", ")} into ${CACHE}\n`);
  execFileSync("flock", ["/tmp/fuzzfarm-npm.lock", "npm", "install", "--no-audit", "--no-fund", "--no-package-lock", "--ignore-scripts"], { cwd: CACHE, stdio: ["ignore", "ignore", "inherit"] });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) installReleases();
