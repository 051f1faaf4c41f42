// A campaign's configuration as the coordinator stores it in PostgreSQL (and
// the dashboard's CI API receives it) and reads it back: the engine, its options checked by the engine's own schema
// (the one workers parse payloads with), and the job sizes. Parsed when the
// campaign is created (a bad `-o` option is a usage error then) and again
// when it is read back, so the planners get typed options, never a cast.
import { z } from "zod";
import { FuzzFarmError } from "./errors";
import { ENGINE_OPTIONS, type EngineName } from "./job";

const sizes = {
  /** Seconds of work per job. */
  jobSeconds: z.number().positive().max(86_400),
  /** Runs per job for engines whose runs are whole programs (node, wasm). Default: the planner's. */
  runsPerJob: z.number().int().min(1).max(1_000_000_000).optional(),
};

export const CampaignConfig = z.discriminatedUnion("engine", [
  z.object({ engine: z.literal("input"), options: ENGINE_OPTIONS.input.prefault({}), ...sizes }),
  z.object({ engine: z.literal("node"), options: ENGINE_OPTIONS.node.prefault({}), ...sizes }),
  z.object({ engine: z.literal("wasm"), options: ENGINE_OPTIONS.wasm.prefault({}), ...sizes }),
]);
/** A campaign's configuration, options with their defaults (as stored). */
export type CampaignConfig = z.infer<typeof CampaignConfig>;
/** A campaign's configuration as given (options as the user wrote them); what planners accept. */
export type CampaignConfigInput = z.input<typeof CampaignConfig>;
export type CampaignConfigFor<E extends EngineName> = Extract<CampaignConfigInput, { engine: E }>;

/** "options.timeoutMs: Invalid input: expected number" for the first issue of a failed parse. */
function firstIssue(error: z.ZodError): string {
  const i = error.issues[0]!;
  return `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`;
}

/**
 * Check a new campaign's configuration with its engine's option schema. Throws FF_ERR_CONFIG with one
 * line naming the option: `node engine: bad option timeoutMs: Invalid input: expected number, received string`.
 */
export function parseCampaignConfig(value: { engine: string; options?: unknown; jobSeconds: number; runsPerJob?: number }): CampaignConfig {
  const r = CampaignConfig.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  if (i.path[0] === "engine") throw new FuzzFarmError("FF_ERR_CONFIG", `unknown engine "${value.engine}" (input, node or wasm)`);
  if (i.path[0] === "options") {
    const where = i.path.slice(1).join(".") || "(options)";
    throw new FuzzFarmError("FF_ERR_CONFIG", `${value.engine} engine: bad option ${where}: ${i.message}`);
  }
  throw new FuzzFarmError("FF_ERR_CONFIG", `bad campaign configuration: ${firstIssue(r.error)}`);
}

/** Read a stored campaign configuration back; throws FF_ERR_INTERNAL when the stored JSON no longer fits. */
export function readCampaignConfig(stored: unknown, campaignId: string): CampaignConfig {
  const r = CampaignConfig.safeParse(stored);
  if (!r.success) throw new FuzzFarmError("FF_ERR_INTERNAL", `campaign ${campaignId}: stored configuration does not parse: ${firstIssue(r.error)}`);
  return r.data;
}
