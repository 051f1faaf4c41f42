// Resolving a target given on the command line: path, engine, name, version.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { FuzzFarmError, type EngineName } from "@fuzzfarm/protocol";

/** Longest campaign (or job) a flag may ask for: 30 days. */
export const MAX_CAMPAIGN_SECONDS = 30 * 24 * 3600;

/**
 * "30s", "5m", "1h", "250ms" or plain seconds -> seconds. A duration flag must
 * be more than `min` (default 0: "0s" is refused) and at most `max`.
 */
export function parseDuration(s: string, o: { flag?: string; min?: number; max?: number } = {}): number {
  const what = o.flag ? `${o.flag} ` : "";
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(String(s).trim());
  if (!m) throw new FuzzFarmError("FF_ERR_CONFIG", `${what}bad duration "${s}" (examples: 30s, 5m, 1h)`);
  const n = Number(m[1]);
  const seconds = m[2] === "ms" ? n / 1000 : m[2] === "m" ? n * 60 : m[2] === "h" ? n * 3600 : n;
  const min = o.min ?? 0;
  const max = o.max ?? MAX_CAMPAIGN_SECONDS;
  if (o.min === 0 ? seconds < 0 : !(seconds > min)) throw new FuzzFarmError("FF_ERR_CONFIG", `${what}must be more than ${min}s (got "${s}")`);
  if (!(seconds <= max)) throw new FuzzFarmError("FF_ERR_CONFIG", `${what}must be at most ${max}s (${max / 86400} days; got "${s}")`);
  return seconds;
}

/** Guess the engine: .wasm/.wat or a wasm generator config -> wasm; a module exporting fuzz() -> input; else node. */
export function inferEngine(path: string): EngineName {
  if (/\.(wasm|wat)$/.test(path) || /\.wasmgen\.json$/.test(path)) return "wasm";
  const text = readFileSync(path, "utf8");
  if (/export\s+(async\s+)?function\s+fuzz\b|export\s+(const|let)\s+fuzz\b|exports\.fuzz\s*=|module\.exports\s*=\s*\{[^}]*\bfuzz\b/.test(text)) return "input";
  return "node";
}

export function gitVersion(dir: string): string | undefined {
  const r = spawnSync("git", ["-C", dir, "rev-parse", "--short=12", "HEAD"], { encoding: "utf8" });
  if (r.status !== 0) return undefined;
  const dirty = spawnSync("git", ["-C", dir, "status", "--porcelain", "--", "."], { encoding: "utf8" }).stdout.trim() ? "-dirty" : "";
  return r.stdout.trim() + dirty;
}

export interface ResolvedTarget {
  path: string;
  name: string;
  engine: EngineName;
  version: string;
}

export function resolveTarget(arg: string, engine: string | undefined, version: string | undefined): ResolvedTarget {
  const path = resolve(arg);
  if (engine && !["input", "node", "wasm"].includes(engine)) throw new FuzzFarmError("FF_ERR_CONFIG", `unknown engine "${engine}" (input, node or wasm)`);
  const isGeneratorName = engine === "wasm" && !existsSync(path) && /^[a-z0-9-]+$/.test(arg);
  if (!isGeneratorName) {
    if (!existsSync(path)) throw new FuzzFarmError("FF_ERR_TARGET_NOT_FOUND", `target ${arg} does not exist`);
    if (!statSync(path).isFile()) throw new FuzzFarmError("FF_ERR_TARGET_INVALID", `target ${arg} is not a file`);
  }
  const e = (engine as EngineName | undefined) ?? inferEngine(path);
  return {
    path: isGeneratorName ? arg : path,
    name: isGeneratorName ? arg : basename(path),
    engine: e,
    version: version ?? (isGeneratorName ? "generator" : gitVersion(dirname(path)) ?? "unversioned"),
  };
}
