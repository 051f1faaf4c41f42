// Cross-engine comparison of a given (litmus) module: the same module and the
// same seeded schedules on every engine configuration (this Node's tiers,
// Deno's V8 tiers, Bun's JSC tiers, command engines). A module's result has no
// generator-known value here, so the engines vote: an outcome that only one
// engine shows (or, when a single engine is compared with itself, fewer than
// half of its configurations) while the others agree on theirs makes that
// engine the odd one out, named with its version. Outcomes the SC reference
// allows are never odd (a racy module may show any of them), nor are outcomes
// of a configuration that ran nothing else.
import type { Harness } from "./harness";
import { runLitmus, type LitmusModule } from "./litmus/litmus";
import { engineOfConfig } from "./findings";

export interface ConfigRun {
  id: string;
  engine: string;
  version: string;
  flags: string;
  outcomes: Record<string, number>;
  errors: Record<string, number>;
  runs: number;
}

export interface OddOne {
  /** The engine whose configurations showed the outcome alone. */
  engine: string;
  configs: string[];
  versions: string[];
  outcome: string;
  /** Outcomes the other configurations showed instead. */
  others: string[];
  message: string;
}

export interface EngineComparison {
  file: string;
  strategy: string;
  configs: ConfigRun[];
  odd: OddOne[];
}

/** Options of compareEngines. */
export interface CompareOptions {
  /** Runs per configuration. Default 20. */
  runs: number;
  /** Schedule strategy (the same seeds on every configuration). Default barrier. */
  strategy: string;
  /** Schedule seed. Default 0. */
  seed: number;
  /** Per-run watchdog, ms. Default 3000. */
  timeoutMs: number;
}

export const DEFAULT_COMPARE: Readonly<CompareOptions> = Object.freeze({ runs: 20, strategy: "barrier", seed: 0, timeoutMs: 3000 });

/** Run `m` on each configuration id (Harness.config) and name the odd ones out. */
export async function compareEngines(h: Harness, m: LitmusModule, ids: string[], opts: Partial<CompareOptions> = {}): Promise<EngineComparison> {
  const o: CompareOptions = { ...DEFAULT_COMPARE, ...opts };
  const configs: ConfigRun[] = [];
  let allowed: string[] | null = null;
  for (const id of ids) {
    const c = h.config(id);
    const r = await runLitmus(h, m, { runs: o.runs, strategy: o.strategy, seed: o.seed, timeoutMs: o.timeoutMs, tier: id });
    allowed ??= r.allowed ?? null;
    const env = c.launch ? Object.entries(c.launch.env).filter(([k]) => k.startsWith("BUN_JSC_")).map(([k, v]) => `${k}=${v}`) : [];
    configs.push({ id, engine: engineOfConfig(id), version: c.version, flags: [...c.flags, ...env].join(" "), outcomes: r.outcomes, errors: r.errors, runs: r.runs });
  }
  return { file: m.file, strategy: o.strategy, configs, odd: oddOnes(configs, allowed) };
}

/** The voting rule of the header, on finished runs. */
export function oddOnes(configs: ConfigRun[], allowed: string[] | null): OddOne[] {
  const engines = [...new Set(configs.map((c) => c.engine))];
  const byEngine = engines.length > 1;
  const unitOf = (c: ConfigRun) => (byEngine ? c.engine : c.id);
  const units = byEngine ? engines : configs.map((c) => c.id);
  const seenBy = new Map<string, Set<string>>();
  for (const c of configs) for (const oc of Object.keys(c.outcomes)) {
    if (!seenBy.has(oc)) seenBy.set(oc, new Set());
    seenBy.get(oc)!.add(unitOf(c));
  }
  const odd: OddOne[] = [];
  for (const [oc, who] of seenBy) {
    if (allowed?.includes(oc)) continue;
    const lone = byEngine ? who.size === 1 : who.size * 2 < units.length;
    if (!lone || units.length < 2) continue;
    for (const unit of who) {
      const mine = configs.filter((c) => unitOf(c) === unit && oc in c.outcomes);
      const rest = configs.filter((c) => unitOf(c) !== unit);
      const others = [...new Set(rest.flatMap((c) => Object.keys(c.outcomes)))];
      // The others must have run and agree on something this unit's outcome is not.
      if (!others.length) continue;
      const engine = mine[0]!.engine;
      const configsIds = mine.map((c) => c.id);
      const versions = [...new Set(mine.map((c) => c.version))];
      odd.push({
        engine, configs: configsIds, versions, outcome: oc, others,
        message: `${engine} is the odd one out: ${configsIds.map((id, i) => `${id}${mine[i]!.flags ? ` (${mine[i]!.flags})` : ""}`).join(", ")} on ${versions.join(", ")} gave ${oc}; ${rest.map((c) => c.id).join(", ")} gave ${others.join(" / ")}`,
      });
    }
  }
  return odd;
}
