// Engines as a dimension of a Wasm job. An engine configuration is one engine
// (this Node's V8, Deno's V8, Bun's JavaScriptCore, or any command that speaks
// the runner protocol) at one tier; each runs in its own supervised child
// process. Configuration ids (findings and buckets carry them):
//   default | liftoff | turbofan        this Node (ids kept from the tier oracle)
//   deno | deno:liftoff | deno:turbofan Deno (V8 flags through --v8-flags)
//   bun | bun:ipint | bun:bbq | bun:jit Bun (JSC options through BUN_JSC_* variables)
//   <name> | <name>:<tier>              a command engine (its tiers are extra arguments)
// Deno and Bun come from npm (@deno/linux-x64-glibc, @oven/bun-linux-x64, pinned in
// package.json); their binary paths can be given instead.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import type { Launch } from "./launch";
import { CHILD, TIER_FLAGS } from "./supervisor";

const require = createRequire(import.meta.url);

export type EngineKind = "node" | "deno" | "bun" | "cmd";

/** One engine of a job (`options.engines`). */
export interface EngineSpec {
  /** node, deno, bun, or cmd (a command following the runner protocol). */
  kind: EngineKind;
  /** Name in configuration ids, findings and buckets. Default: the kind (cmd: required). */
  name?: string;
  /** deno / bun: the binary. Default: the one from the pinned npm package. */
  path?: string;
  /** cmd: the argv that starts a runner (for instance `["deno", "run", "-A", ".../child.mjs"]`). */
  command?: string[];
  /** cmd: tier name -> extra arguments inserted after command[0]. Default none. */
  tiers?: Record<string, string[]>;
  /** Version string for findings. Default: asked from the binary (`--version`); cmd: "unknown". */
  version?: string;
}

/** A resolved engine configuration: what to start and how to name it. */
export interface EngineConfig {
  id: string;
  engine: string;
  tier: string;
  version: string;
  /** null: this Node with `flags` over IPC (the historical path). */
  launch: Launch | null;
  flags: string[];
}

/** V8 tiers (Node and Deno). */
export const V8_TIERS: Record<string, string[]> = { default: [], liftoff: ["--liftoff-only"], turbofan: ["--no-liftoff"] };

/**
 * JavaScriptCore tiers as Bun 1.4 honours them (checked against the binary: BUN_JSC_useWasmLLInt is
 * rejected as an invalid variable since IPInt replaced the LLInt; a hot loop runs 26x slower with
 * BBQ and OMG off, so the interpreter-only setting takes effect).
 */
export const JSC_TIERS: Record<string, Record<string, string>> = {
  default: {},
  ipint: { BUN_JSC_useBBQJIT: "0", BUN_JSC_useOMGJIT: "0" },
  bbq: { BUN_JSC_useOMGJIT: "0" },
  jit: { BUN_JSC_useWasmIPInt: "0" },
};

/** npm package and binary inside it, per engine. */
const NPM_BINARY: Record<"deno" | "bun", { pkg: string; bin: string }> = {
  deno: { pkg: "@deno/linux-x64-glibc", bin: "deno" },
  bun: { pkg: "@oven/bun-linux-x64", bin: "bin/bun" },
};

/** Path of the engine binary installed from npm, or null when the package is missing. */
export function npmEngineBinary(kind: "deno" | "bun"): string | null {
  const { pkg, bin } = NPM_BINARY[kind];
  try {
    const p = join(dirname(require.resolve(`${pkg}/package.json`)), bin);
    return existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

const versions = new Map<string, string>();
function versionOf(kind: EngineKind, path: string): string {
  const key = `${kind}:${path}`;
  let v = versions.get(key);
  if (v) return v;
  if (kind === "node") v = `node ${process.version} (V8 ${process.versions.v8})`;
  else {
    const out = execFileSync(path, ["--version"], { encoding: "utf8", timeout: 20_000 }).trim().split("\n");
    v = kind === "deno" ? `${out[0]} (${(out[1] ?? "").trim()})` : `bun ${out[0]} (JavaScriptCore)`;
  }
  versions.set(key, v);
  return v;
}

/** Tier names an engine offers (the first is its default configuration). */
export function engineTiers(s: EngineSpec): string[] {
  if (s.kind === "node" || s.kind === "deno") return Object.keys(V8_TIERS);
  if (s.kind === "bun") return Object.keys(JSC_TIERS);
  return ["default", ...Object.keys(s.tiers ?? {})];
}

export const engineName = (s: EngineSpec): string => s.name ?? s.kind;

/** Configuration id of engine `s` at `tier`. */
export function configId(s: EngineSpec, tier: string): string {
  if (s.kind === "node" && engineName(s) === "node") return tier;
  return tier === "default" ? engineName(s) : `${engineName(s)}:${tier}`;
}

/**
 * Resolve one configuration. `v8Extra`: V8 flags every Deno configuration gets (for instance
 * `--experimental-wasm-shared` for shared-everything modules; this Node's V8 11.3 has no such
 * flags, its configurations keep their own). Throws FF_ERR_CONFIG when the
 * engine's binary is missing or the tier unknown.
 */
export function resolveConfig(s: EngineSpec, tier: string, v8Extra: string[] = []): EngineConfig {
  const engine = engineName(s);
  if (!engineTiers(s).includes(tier))
    throw new FuzzFarmError("FF_ERR_CONFIG", `engine ${engine} has no tier '${tier}' (tiers: ${engineTiers(s).join(", ")})`);
  const id = configId(s, tier);
  if (s.kind === "node") {
    const flags = TIER_FLAGS[tier] ?? V8_TIERS[tier]!;
    return { id, engine, tier, version: s.version ?? versionOf("node", process.execPath), launch: null, flags };
  }
  if (s.kind === "deno" || s.kind === "bun") {
    const path = s.path ?? npmEngineBinary(s.kind);
    if (!path || !existsSync(path))
      throw new FuzzFarmError("FF_ERR_CONFIG", `${s.kind} binary not found (${s.path ?? `npm package ${NPM_BINARY[s.kind].pkg} is not installed; run npm ci`})`);
    const version = s.version ?? versionOf(s.kind, path);
    if (s.kind === "deno") {
      const v8 = [...V8_TIERS[tier]!, ...v8Extra];
      const args = ["run", "--allow-all", "--quiet", "--no-config", "--no-lock", ...(v8.length ? [`--v8-flags=${v8.join(",")}`] : []), CHILD];
      return { id, engine, tier, version, flags: v8, launch: { command: path, args, env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" } } };
    }
    return { id, engine, tier, version, flags: [], launch: { command: path, args: [CHILD], env: { ...JSC_TIERS[tier]! } } };
  }
  const argv = s.command ?? [];
  if (!argv.length || !s.name) throw new FuzzFarmError("FF_ERR_CONFIG", "a command engine needs a name and a command (argv)");
  const extra = tier === "default" ? [] : s.tiers![tier]!;
  return { id, engine, tier, version: s.version ?? "unknown", flags: extra, launch: { command: argv[0]!, args: [...extra, ...argv.slice(1)], env: {} } };
}

/** Parse a CLI / job engine list: "node,deno,bun" or specs. Throws FF_ERR_CONFIG. */
export function parseEngines(v: unknown): EngineSpec[] {
  const items = typeof v === "string" ? v.split(",").map((x) => x.trim()).filter(Boolean) : Array.isArray(v) ? v : [v];
  return items.map((it): EngineSpec => {
    if (typeof it === "string") {
      if (it === "node" || it === "deno" || it === "bun") return { kind: it };
      throw new FuzzFarmError("FF_ERR_CONFIG", `unknown engine '${it}' (node, deno, bun, or {"kind":"cmd","name":...,"command":[...]})`);
    }
    const o = it as Partial<EngineSpec>;
    if (!o || typeof o !== "object" || !["node", "deno", "bun", "cmd"].includes(o.kind as string))
      throw new FuzzFarmError("FF_ERR_CONFIG", `bad engine spec ${JSON.stringify(it)}`);
    if (o.kind === "cmd" && (!o.name || !Array.isArray(o.command) || !o.command.length))
      throw new FuzzFarmError("FF_ERR_CONFIG", `a command engine needs "name" and "command" (argv): ${JSON.stringify(it)}`);
    return { ...o } as EngineSpec;
  });
}

/** The configuration behind an id (see the header); `specs` name paths and command engines. Throws FF_ERR_CONFIG. */
export function configOf(id: string, specs: EngineSpec[], v8Extra: string[] = []): EngineConfig {
  if (id in V8_TIERS) return resolveConfig(specs.find((s) => s.kind === "node" && engineName(s) === "node") ?? { kind: "node" }, id, v8Extra);
  const [name, tier = "default"] = id.split(":") as [string, string?];
  const spec = specs.find((s) => engineName(s) === name) ?? (name === "deno" || name === "bun" ? { kind: name } : null);
  if (!spec) throw new FuzzFarmError("FF_ERR_CONFIG", `unknown engine configuration '${id}' (node tiers default/liftoff/turbofan, deno[:tier], bun[:tier], or a command engine's name)`);
  return resolveConfig(spec, tier, v8Extra);
}

/** Configuration ids of a list of engines: each engine's default configuration, or all its tiers. */
export function engineConfigIds(specs: EngineSpec[], allTiers = false): string[] {
  return specs.flatMap((s) => (allTiers ? engineTiers(s) : ["default"]).map((t) => configId(s, t)));
}
