// The engines one worker offers to farm jobs. The worker's operator names engine binaries in the
// worker's own configuration (command engines by name with their argv, the Deno and Bun binaries);
// a job can only pick a configuration id out of what this yields, never carry a path or a command.
//   this Node:  default | liftoff | turbofan            always
//   Deno, Bun:  deno[:tier], bun[:tier]                 when the binary exists (npm package or the configured path)
//   commands:   <name>, <name>:<tier>                   only those configured
import { existsSync } from "node:fs";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { configId, engineTiers, npmEngineBinary, V8_TIERS, type EngineSpec } from "./engines";

/** A command engine a worker's operator configured: it follows the runner protocol (README "Runner protocol"). */
export interface CommandEngine {
  /** Its name in jobs, findings and buckets: lowercase letters, digits, `-` and `_`, not a built-in engine or tier. */
  name: string;
  /** The argv that starts the runner; started without a shell. */
  command: string[];
  /** Tier name -> extra arguments inserted after command[0] (job id `<name>:<tier>`). Default none. */
  tiers?: Record<string, string[]>;
}

/** Engine binaries of one worker (or CLI run): the only engines its jobs may name. */
export interface WasmEngineOptions {
  /** Command engines by name. Default none. */
  commands?: CommandEngine[];
  /** Deno binary; null: no Deno on this worker. Default: the pinned npm package @deno/linux-x64-glibc. */
  denoPath?: string | null;
  /** Bun binary; null: no Bun on this worker. Default: the pinned npm package @oven/bun-linux-x64. */
  bunPath?: string | null;
}

/** Names a command engine may not take: the built-in engines and the ids of this Node's tiers. */
const RESERVED = new Set(["node", "deno", "bun", ...Object.keys(V8_TIERS)]);
const NAME = /^[a-z][a-z0-9_-]{0,40}$/;

/** Check the options (FF_ERR_CONFIG on a bad name, an empty command, a duplicate) and turn them into engine specs. */
export function offeredSpecs(o: WasmEngineOptions): EngineSpec[] {
  const specs: EngineSpec[] = [];
  if (o.denoPath !== null) specs.push({ kind: "deno", ...(o.denoPath ? { path: o.denoPath } : {}) });
  if (o.bunPath !== null) specs.push({ kind: "bun", ...(o.bunPath ? { path: o.bunPath } : {}) });
  const seen = new Set<string>();
  for (const c of o.commands ?? []) {
    if (!NAME.test(c.name) || RESERVED.has(c.name))
      throw new FuzzFarmError("FF_ERR_CONFIG", `command engine name '${c.name}' must be lowercase letters, digits, - or _ and not one of ${[...RESERVED].join(", ")}`);
    if (seen.has(c.name)) throw new FuzzFarmError("FF_ERR_CONFIG", `command engine '${c.name}' is configured twice`);
    seen.add(c.name);
    if (!c.command.length || !c.command[0]) throw new FuzzFarmError("FF_ERR_CONFIG", `command engine '${c.name}' has an empty command`);
    for (const t of Object.keys(c.tiers ?? {}))
      if (!NAME.test(t) || t === "default") throw new FuzzFarmError("FF_ERR_CONFIG", `command engine '${c.name}': bad tier name '${t}'`);
    specs.push({ kind: "cmd", name: c.name, command: [...c.command], tiers: { ...c.tiers } });
  }
  return specs;
}

/** Whether the binary behind a deno / bun spec is there (commands are checked by the self-test). */
const present = (s: EngineSpec) => (s.kind !== "deno" && s.kind !== "bun") || existsSync(s.path ?? npmEngineBinary(s.kind) ?? "");

/** Configuration ids a job may name on this worker, in a stable order. */
export function offeredIds(specs: EngineSpec[]): string[] {
  return [...Object.keys(V8_TIERS), ...specs.filter(present).flatMap((s) => engineTiers(s).map((t) => configId(s, t)))];
}

/**
 * Refuse engine ids a job names that this worker does not offer: FF_ERR_BAD_JOB with a one-line message
 * naming what it offers. A path or a command line is just an unknown name here.
 */
export function checkEngineIds(ids: readonly string[], offered: readonly string[]): void {
  const unknown = ids.filter((id) => !offered.includes(id));
  if (unknown.length)
    throw new FuzzFarmError(
      "FF_ERR_BAD_JOB",
      `unknown engine configuration ${unknown.map((u) => `'${u.slice(0, 80).replace(/\s+/g, " ")}'`).join(", ")} on this worker; it offers: ${offered.join(", ")} (command engines and binaries are named in the worker's own configuration)`,
    );
}
