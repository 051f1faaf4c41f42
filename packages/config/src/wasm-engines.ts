// A worker's wasm engine binaries, as its operator names them (FUZZFARM_WASM_ENGINES,
// FUZZFARM_DENO_PATH, FUZZFARM_BUN_PATH). Jobs name engines only; these settings are the
// allow-list those names are resolved against. Command lines are split into argv here
// (quotes group words, nothing is expanded) and are later started without a shell.
import { z } from "zod";
import { isFuzzFarmError, splitArgv, splitOutsideQuotes } from "@fuzzfarm/protocol";

/** One command engine of a worker (the runner protocol of packages/engine-wasm). */
export interface CommandEngineConfig {
  name: string;
  /** argv that starts the runner. */
  command: string[];
  /** tier -> extra arguments inserted after command[0]. */
  tiers: Record<string, string[]>;
}

const ENTRY = /^([^=:\s]+)(?::([^=\s]+))?\s*=(.*)$/s;

/**
 * Entries `NAME=ARGV` (a command engine) and `NAME:TIER=ARGS` (a tier of it: extra arguments inserted
 * after the command's first word) into command engines. Throws FF_ERR_CONFIG on a malformed entry.
 */
export function parseCommandEngines(entries: readonly string[]): CommandEngineConfig[] {
  const out: CommandEngineConfig[] = [];
  const tiers: { name: string; tier: string; args: string[] }[] = [];
  for (const entry of entries) {
    const m = ENTRY.exec(entry.trim());
    if (!m) throw new Error(`'${entry}' is not NAME=COMMAND or NAME:TIER=ARGS`);
    // groups 1 and 3 always match; group 2 (the tier) is optional
    const [, name, , rest] = m;
    const tier: string | undefined = m[2];
    const argv = splitArgv(rest);
    if (tier !== undefined) tiers.push({ name, tier, args: argv });
    else {
      if (!argv.length) throw new Error(`command engine '${name}' has an empty command`);
      if (out.some((c) => c.name === name)) throw new Error(`command engine '${name}' is named twice`);
      out.push({ name, command: argv, tiers: {} });
    }
  }
  for (const t of tiers) {
    const c = out.find((x) => x.name === t.name);
    if (!c) throw new Error(`tier '${t.name}:${t.tier}' names no command engine '${t.name}'`);
    c.tiers[t.tier] = t.args;
  }
  return out;
}

/** FUZZFARM_WASM_ENGINES: ";"-separated entries (outside quotes) in env, a string or an array of entries in a file. */
export const WasmEnginesSchema = z
  .preprocess((v) => (typeof v === "string" ? splitOutsideQuotes(v, ";") : v), z.array(z.string().min(1)))
  .transform((entries, ctx) => {
    try {
      return parseCommandEngines(entries);
    } catch (e) {
      ctx.addIssue({ code: "custom", message: isFuzzFarmError(e) ? e.message : (e as Error).message });
      return z.NEVER;
    }
  });

/** FUZZFARM_DENO_PATH / FUZZFARM_BUN_PATH: a binary path, or "none" (null) for no such engine on this worker. */
export const EnginePathSchema = z
  .string()
  .min(1)
  .transform((v) => (v.trim() === "none" ? null : v.trim()));
