// `fuzzfarm wasm ...` subcommands (argv = the arguments after `wasm`).
// Exit codes: 0 ok, 1 findings, 2 usage or input error (one line, with its code).
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { FuzzFarmError, oneLine } from "@fuzzfarm/protocol";
import { GEN_PRESETS, parseGenConfig, type GenConfig } from "./gen/config";
import { emitWat } from "./gen/emit";
import { generate } from "./gen/generate";
import { Harness, type FaultSpec } from "./harness";
import { minimizeFinding, toFinding } from "./findings";
import { loadLitmus, runLitmus, type LitmusReport } from "./litmus/litmus";
import { OPT_LEVELS, type OptLevel } from "./optimize";
import { probeOptimizer, probeSummary, withinOptimizer } from "./optimizer/probe";
import { checkStrategy } from "./runner/strategies";
import { FAULT_KINDS, type FaultKind } from "./text/faults";
import { encodeWat, encodeWatBinaryen } from "./wasm-tools";
import { cmdEngines, ENGINE_CLI_OPTIONS, ENGINES_HELP, enginesFromArgs } from "./cli-engines";
import { engineConfigIds } from "./runner/engines";

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}
const defaultIo: CliIo = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

const HELP: Record<string, string> = {
  main: `usage: fuzzfarm wasm <command> [options]

commands:
  litmus FILE.wasm   run a litmus module (exports t0..tN-1, optional final) under a schedule strategy
  gen                print the .wat of a generated program
  run                generate programs and check them against every oracle (local, no farm)
  engines FILE.wasm  run a module on node, deno and bun (and their tiers); name the odd one out

Run 'fuzzfarm wasm <command> --help' for the options of a command.
`,
  litmus: `usage: fuzzfarm wasm litmus FILE.wasm|FILE.wat [options]

  --runs N          runs (default 200)
  --strategy S      auto | race | token | pct | pct:D | delay | barrier | mix | dfs (default auto);
                    auto explores systematically (one run per order of racing accesses) within
                    half the runs, says whether it got through, then runs guided random schedules;
                    dfs runs every interleaving of accesses once and stops when done
  --seed N          schedule seed (default 0)
  --fault K         inject a fault: ${FAULT_KINDS.join(", ")}
  --tier T          default | liftoff | turbofan (default default)
  --json            print {runs, outcomes, allowed, forbiddenSeen, ...}
Exit 1 when an outcome outside the SC-allowed set was seen.
`,
  gen: `usage: fuzzfarm wasm gen [options]

  --seed N          generator seed (default 0)
  --preset P        ${Object.keys(GEN_PRESETS).join(" | ")} (default default)
  --config JSON     generator options, e.g. '{"threads":3,"locks":false}'
  --out FILE        also write the binary module to FILE
  --shared-everything  emit shared-everything constructs (validated by Binaryen only)
`,
  run: `usage: fuzzfarm wasm run [options]

  --seed N          first generator seed (default 0)
  --count N         programs (default 10)
  --runs N          schedules per program (default 20)
  --strategy S      race | token | pct | pct:D | delay | barrier | mix (default mix)
  --preset P / --config JSON   generator configuration
  --optimizer PATH  directory holding the binaryen package under test
  --optimizer-cmd C optimizer command, run as 'C IN.wasm -o OUT.wasm'
  --opt-levels L    comma list of O1,O2,O3,Os (default O2)
  --no-tiers        skip the Liftoff/TurboFan comparison
  --fault K[:WHERE] inject a fault (${FAULT_KINDS.join(", ")}); WHERE = all | liftoff | optimized
  --minimize        minimize each failing program
  --engines LIST    also compare other engines under the same schedules: comma list of deno, bun
                    (--tiers: each engine's tiers too; --deno/--bun PATH, --cmd NAME=ARGV as in 'engines')
  --json            one JSON object per program
Exit 1 when any program failed an oracle.
`,
  engines: ENGINES_HELP,
};

class Usage extends Error {}

function int(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^-?\d+$/.test(v)) throw new Usage(`--${name} needs an integer, got '${v}'`);
  return Number(v);
}

function genConfig(v: Record<string, unknown>): GenConfig {
  let raw: Record<string, unknown> = {};
  if (typeof v.config === "string") {
    try {
      raw = JSON.parse(v.config);
    } catch {
      throw new Usage("--config needs a JSON object");
    }
  }
  if (typeof v.preset === "string") raw.preset = v.preset;
  if (v["shared-everything"]) raw.sharedEverything = true;
  return parseGenConfig(raw);
}

export async function runWasmCli(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  const out = { ...defaultIo, ...io };
  const cmd = argv[0];
  const rest = argv.slice(1);
  try {
    if (!cmd || cmd === "--help" || cmd === "-h" || cmd === "help") {
      out.stdout(HELP.main!);
      return cmd ? 0 : 2;
    }
    if (!(cmd in HELP) || cmd === "main") throw new Usage(`unknown command '${cmd}' (litmus, gen, run, engines)`);
    if (rest.includes("--help") || rest.includes("-h")) {
      out.stdout(HELP[cmd]!);
      return 0;
    }
    if (cmd === "gen") return await cmdGen(rest, out);
    if (cmd === "litmus") return await cmdLitmus(rest, out);
    if (cmd === "engines") return await cmdEngines(rest, out);
    return await cmdRun(rest, out);
  } catch (e) {
    if (e instanceof Usage || (e instanceof TypeError && "code" in e && String((e as { code: unknown }).code).startsWith("ERR_PARSE_ARGS"))) {
      out.stderr(`FF_ERR_CONFIG: ${e.message.split("\n")[0]}\n`);
      return 2;
    }
    if (e instanceof FuzzFarmError) {
      out.stderr(oneLine(e) + "\n");
      return 2;
    }
    throw e;
  }
}

async function cmdGen(args: string[], out: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { seed: { type: "string" }, preset: { type: "string" }, config: { type: "string" }, out: { type: "string" }, "shared-everything": { type: "boolean" } } });
  const cfg = genConfig(values);
  const p = generate(int(values.seed, "seed", 0), cfg);
  const wat = emitWat(p);
  const bytes = cfg.sharedEverything ? await encodeWatBinaryen(wat) : await encodeWat(wat);
  if (values.out) await writeFile(values.out, bytes);
  out.stdout(wat + "\n");
  return 0;
}

async function cmdLitmus(args: string[], out: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true,
    options: { runs: { type: "string" }, strategy: { type: "string" }, seed: { type: "string" }, json: { type: "boolean" }, fault: { type: "string" }, tier: { type: "string" } },
  });
  if (positionals.length !== 1) throw new Usage("litmus needs exactly one FILE.wasm");
  const strategy = values.strategy ?? "auto";
  checkStrategy(strategy, true);
  if (values.fault && !(FAULT_KINDS as readonly string[]).includes(values.fault)) throw new Usage(`--fault must be one of ${FAULT_KINDS.join(", ")}`);
  if (values.tier && !["default", "liftoff", "turbofan"].includes(values.tier)) throw new Usage("--tier must be default, liftoff or turbofan");
  const runs = int(values.runs, "runs", 200);
  if (runs < 1) throw new Usage("--runs must be at least 1");
  const m = await loadLitmus(positionals[0]!);
  const h = new Harness();
  try {
    const r = await runLitmus(h, m, { runs, strategy, seed: int(values.seed, "seed", 0), fault: (values.fault as FaultKind) ?? null, tier: values.tier ?? "default" });
    if (values.json) out.stdout(JSON.stringify(r) + "\n");
    else {
      out.stdout(`${r.file}: ${r.threads} threads, ${r.runs} runs, strategy ${r.strategy}, seed ${r.seed}\n`);
      for (const [oc, n] of Object.entries(r.outcomes).sort((a, b) => b[1] - a[1]))
        out.stdout(`  ${JSON.stringify(oc).padEnd(24)} ${String(n).padStart(6)}  first at run ${r.firstSeen[oc]}${r.allowed && !r.allowed.includes(oc) ? "  FORBIDDEN under SC" : ""}\n`);
      for (const line of explorationLines(r, runs)) out.stdout(`  ${line}\n`);
      if (r.allowed) out.stdout(`  allowed under SC: ${r.allowed.length} (${r.allowed.filter((a) => a in r.outcomes).length} seen)\n`);
      else out.stdout(`  (module too large or outside the reference interpreter's subset: no allowed set)\n`);
      for (const [k, n] of Object.entries(r.errors)) out.stdout(`  ${k}: ${n} runs\n`);
    }
    return (r.forbiddenSeen?.length ?? 0) > 0 || Object.keys(r.errors).length > 0 ? 1 : 0;
  } finally {
    await h.close();
  }
}

/** What the systematic exploration of `auto` / `dfs` got through, in words. */
export function explorationLines(r: LitmusReport, budget: number): string[] {
  const e = r.exploration;
  if (!e) return [];
  const seen = r.allowed ? r.allowed.filter((a) => a in r.outcomes).length : Object.keys(r.outcomes).length;
  const unit = e.reduced ? "order of racing accesses" : "interleaving of memory accesses";
  const lines: string[] = [];
  const split = e.guidedRuns ? `: ${e.systematicRuns} systematic, ${e.guidedRuns} guided` : "";
  if (e.exhausted) {
    const all = r.allowed && seen === r.allowed.length;
    lines.push(all
      ? `exhaustive: all ${r.allowed!.length} SC outcomes seen (every ${unit} ran, ${e.exhaustedAfter} runs${split})`
      : `exhaustive: every ${unit} ran (${e.exhaustedAfter} runs${split}); ${seen}${r.allowed ? ` of ${r.allowed.length} SC` : ""} outcomes seen`);
    if (e.randomRuns > 0) lines.push(`then ${e.randomRuns} runs of random token schedules`);
  } else {
    lines.push(`systematic: ${e.systematicRuns} runs, not exhausted within --runs ${budget} (${e.frontier} alternatives left, at least that many runs; ${e.flippedPairs} of ${e.racingPairs} racing pairs seen in both orders)`);
    if (e.guidedRuns > 0) lines.push(`guided random: ${e.guidedRuns} runs (untried alternatives in seeded order, those reversing racing pairs not yet seen reversed first)`);
  }
  if (r.allowed) lines.push(`${seen === r.allowed.length ? "all" : `${seen} of`} ${r.allowed.length} SC-allowed outcomes seen${seen === r.allowed.length ? ` by run ${Math.max(...r.allowed.map((a) => r.firstSeen[a]!)) + 1}` : ""}`);
  return lines;
}

async function cmdRun(args: string[], out: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      seed: { type: "string" }, count: { type: "string" }, runs: { type: "string" }, strategy: { type: "string" }, preset: { type: "string" }, config: { type: "string" },
      optimizer: { type: "string" }, "optimizer-cmd": { type: "string" }, "opt-levels": { type: "string" }, "no-tiers": { type: "boolean" },
      fault: { type: "string" }, minimize: { type: "boolean" }, json: { type: "boolean" }, ...ENGINE_CLI_OPTIONS,
    },
  });
  const engineSpecs = values.engines ? enginesFromArgs(values) : [];
  const engines = engineConfigIds(engineSpecs, !!values.tiers).filter((id) => id !== "default");
  const strategy = values.strategy ?? "mix";
  checkStrategy(strategy);
  const levels = (values["opt-levels"] ?? "O2").split(",").filter(Boolean);
  for (const l of levels) if (!(OPT_LEVELS as readonly string[]).includes(l)) throw new Usage(`--opt-levels: unknown level '${l}'`);
  let fault: FaultSpec | null = null;
  if (values.fault) {
    const [kind, where = "all"] = values.fault.split(":");
    if (!(FAULT_KINDS as readonly string[]).includes(kind!) || !["all", "liftoff", "optimized"].includes(where)) throw new Usage(`--fault must be KIND[:all|liftoff|optimized], KIND one of ${FAULT_KINDS.join(", ")}`);
    fault = { kind: kind as FaultKind, where: where as FaultSpec["where"] };
  }
  const optimizer = { path: values.optimizer ?? null, cmd: values["optimizer-cmd"] ?? null };
  // Generate within what the optimizer under test supports, and say what it lacks.
  const probe = await probeOptimizer(optimizer);
  const cfg = withinOptimizer(genConfig(values), probe);
  if (probeSummary(probe)) out.stderr(`${probeSummary(probe)}\n`);
  const seed0 = int(values.seed, "seed", 0);
  const count = int(values.count, "count", 10);
  const h = new Harness({}, { engines: engineSpecs });
  let failed = 0;
  try {
    for (let s = seed0; s < seed0 + count; s++) {
      const p = generate(s, cfg);
      const opts = { runs: int(values.runs, "runs", 20), strategy, optimizer, optLevels: levels as OptLevel[], tiers: !values["no-tiers"], fault, engines };
      const r = await h.check(p, opts);
      if (r.findings.length) failed++;
      const findings = [];
      for (const f of r.findings) {
        if (values.minimize) {
          const m = await minimizeFinding(h, p, f, opts, { deadline: performance.now() + 30_000 });
          findings.push(toFinding(m, p, cfg, strategy, fault ? { fault } : {}));
        } else findings.push({ oracle: f.oracle, message: f.message, config: f.config });
      }
      if (values.json) out.stdout(JSON.stringify({ seed: s, shape: r.shape, threads: p.threads.length, execs: r.execs, ms: Math.round(r.ms), expected: r.expected, outcomes: r.outcomes, findings, faultApplies: r.faultApplies }) + "\n");
      else {
        out.stdout(`seed ${s}: ${p.threads.length} threads, ${r.execs} runs, ${Math.round(r.ms)} ms, ${r.findings.length ? `${r.findings.length} finding(s)` : "ok"}\n`);
        for (const f of findings) out.stdout(`  [${"oracle" in f ? f.oracle : ""}] ${f.message}\n`);
        if (values.minimize) for (const f of findings) out.stdout(`${(f as { stack?: string }).stack ?? ""}\n`);
      }
    }
  } finally {
    await h.close();
  }
  return failed ? 1 : 0;
}
