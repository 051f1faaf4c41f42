// `fuzzfarm wasm engines FILE` — run one module on several engines and tiers
// under the same seeded schedules and name the odd one out (cross-engine.ts).
// Exit codes: 0 all agree, 1 an engine is the odd one out (or a run failed), 2 usage.
import { parseArgs } from "node:util";
import { FuzzFarmError, splitArgv } from "@fuzzfarm/protocol";
import { compareEngines } from "./cross-engine";
import { Harness } from "./harness";
import { loadLitmus } from "./litmus/litmus";
import { engineConfigIds, parseEngines, type EngineSpec } from "./runner/engines";
import { checkStrategy } from "./runner/strategies";

export const ENGINES_HELP = `usage: fuzzfarm wasm engines FILE.wasm|FILE.wat [options]

Runs a litmus module (exports t0..tN-1, optional final) on every engine
configuration under the same schedules and names the engine whose result differs.

  --engines LIST    comma list of node, deno, bun (default node,deno,bun)
  --tiers           every tier of each engine (V8: liftoff, turbofan; JSC: ipint, bbq, jit)
  --deno PATH       deno binary (default: npm @deno/linux-x64-glibc)
  --bun PATH        bun binary (default: npm @oven/bun-linux-x64)
  --cmd NAME=ARGV   a command engine following the runner protocol (ARGV split into words
                    as a shell would, quotes group, nothing expanded; run without a shell)
  --runs N          runs per configuration (default 20)
  --strategy S      barrier | delay | token | race | pct | dfs | auto (default barrier)
  --seed N          schedule seed (default 0)
  --json            print the comparison as JSON
`;

/** Engine specs from the shared CLI options (--engines, --deno, --bun, --cmd). */
export function enginesFromArgs(v: { engines?: string; deno?: string; bun?: string; cmd?: string[] }, dflt = "node,deno,bun"): EngineSpec[] {
  const specs = parseEngines(v.engines ?? dflt).map((s) => (s.kind === "deno" && v.deno ? { ...s, path: v.deno } : s.kind === "bun" && v.bun ? { ...s, path: v.bun } : s));
  for (const c of v.cmd ?? []) {
    const eq = c.indexOf("=");
    if (eq <= 0) throw new FuzzFarmError("FF_ERR_CONFIG", `--cmd needs NAME=ARGV, got '${c}'`);
    specs.push({ kind: "cmd", name: c.slice(0, eq), command: splitArgv(c.slice(eq + 1)) });
  }
  return specs;
}

export const ENGINE_CLI_OPTIONS = {
  engines: { type: "string" }, tiers: { type: "boolean" }, deno: { type: "string" }, bun: { type: "string" }, cmd: { type: "string", multiple: true },
} as const;

export async function cmdEngines(args: string[], out: { stdout: (s: string) => void }): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true,
    options: { ...ENGINE_CLI_OPTIONS, runs: { type: "string" }, strategy: { type: "string" }, seed: { type: "string" }, json: { type: "boolean" } },
  });
  if (positionals.length !== 1) throw new FuzzFarmError("FF_ERR_CONFIG", "engines needs exactly one FILE.wasm");
  const strategy = values.strategy ?? "barrier";
  checkStrategy(strategy, true);
  const num = (v: string | undefined, name: string, d: number) => {
    if (v === undefined) return d;
    if (!/^\d+$/.test(v)) throw new FuzzFarmError("FF_ERR_CONFIG", `--${name} needs an integer, got '${v}'`);
    return Number(v);
  };
  const specs = enginesFromArgs(values);
  const ids = engineConfigIds(specs, !!values.tiers);
  const m = await loadLitmus(positionals[0]!);
  const h = new Harness({}, { engines: specs });
  try {
    const r = await compareEngines(h, m, ids, { runs: num(values.runs, "runs", 20), strategy, seed: num(values.seed, "seed", 0) });
    if (values.json) out.stdout(JSON.stringify(r) + "\n");
    else {
      out.stdout(`${r.file}: ${r.configs.length} configurations, ${r.configs[0]?.runs ?? 0} runs each, strategy ${r.strategy}\n`);
      for (const c of r.configs) {
        const oc = Object.entries(c.outcomes).map(([k, n]) => `${k} x${n}`).join(", ");
        const er = Object.entries(c.errors).map(([k, n]) => `${k} x${n}`).join(", ");
        out.stdout(`  ${c.id.padEnd(14)} ${c.version}${c.flags ? ` [${c.flags}]` : ""}: ${oc || "-"}${er ? `  errors: ${er}` : ""}\n`);
      }
      for (const o of r.odd) out.stdout(`FINDING ${o.message}\n`);
      if (!r.odd.length) out.stdout("all engines agree\n");
    }
    return r.odd.length || r.configs.some((c) => Object.keys(c.errors).length) ? 1 : 0;
  } finally {
    await h.close();
  }
}
