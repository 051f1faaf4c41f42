// Resolving a target given on the command line: path, engine, name, version.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { FuzzFarmError, type EngineName } from "@fuzzfarm/protocol";

export function parseDuration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s.trim());
  if (!m) throw new FuzzFarmError("FF_ERR_CONFIG", `bad duration "${s}" (examples: 30s, 5m, 1h)`);
  const n = Number(m[1]);
  return m[2] === "ms" ? n / 1000 : m[2] === "m" ? n * 60 : m[2] === "h" ? n * 3600 : n;
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
