// `fuzzfarm node [options] [--] script.js [args...]`: run the program once
// (or up to --runs times) under the fuzzer, behave like `node script.js`.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { resolve } from "node:path";
import { randomInt } from "node:crypto";
import { isFuzzFarmError, isNodeJobStrategy, oneLine, type NodeJobStrategy } from "@fuzzfarm/protocol";
import { HELP, failureLine, parseCliArgs, type CliOptions } from "./cli-args";
import { execute, type Execution } from "./execute";
import { toReplaySpec, type Trace } from "./trace";
import { HANG_EXIT_CODE } from "./outcome";
import { minimizeSchedule } from "./minimize";
import { constants as osConstants } from "node:os";

/** The strategy a recorded trace names ("mix:pct" is pct); a name no job may use replays as "none" (a replay follows the recorded events). */
function replayStrategy(name: string): NodeJobStrategy {
  const s = name.replace(/^mix:/, "");
  return isNodeJobStrategy(s) ? s : "none";
}

export interface CliIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

const USAGE_EXIT = 2;

/** The whole `fuzzfarm node ...` command; argv is what follows `node`. Resolves to the exit code. */
export async function runNodeCli(argv: string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let o: CliOptions;
  try {
    o = parseCliArgs(argv);
  } catch (e) {
    io.stderr.write(`fuzzfarm node: ${isFuzzFarmError(e) ? e.message : oneLine(e)}\n`);
    return USAGE_EXIT;
  }
  if (o.help) { io.stdout.write(HELP); return 0; }
  if (!o.script) { io.stderr.write("fuzzfarm node: missing script (see fuzzfarm node --help)\n"); return USAGE_EXIT; }
  const script = resolve(o.script);
  if (!existsSync(script)) { io.stderr.write(`fuzzfarm node: cannot find ${o.script}\n`); return USAGE_EXIT; }
  const loadTrace = (file: string): Trace | null => {
    try { return JSON.parse(readFileSync(file, "utf8")) as Trace; } catch (e) {
      io.stderr.write(`fuzzfarm node: cannot read trace ${file}: ${oneLine(e)}\n`);
      return null;
    }
  };

  if (o.minimize) {
    const trace = loadTrace(o.minimize);
    if (!trace) return USAGE_EXIT;
    const r = await minimizeSchedule({ script, args: o.args, trace, timeoutMs: o.timeoutMs, stallMs: o.stallMs });
    if (!r.reproduced) { io.stderr.write(`fuzzfarm node: ${r.text}\n`); return 1; }
    const out = o.traceOut ?? o.minimize.replace(/(\.json)?$/, ".min.json");
    if (r.trace) writeFileSync(out, JSON.stringify({ ...r.trace, holdSet: r.held }));
    io.stdout.write(`failure: ${r.signature}\nminimal perturbation: ${r.held.length} of ${r.originalHeld.length} held callbacks (${r.runs} replays)\n`);
    for (const line of r.explanation) io.stdout.write(`  - ${line}\n`);
    io.stdout.write(`${r.text}\nminimized trace: ${out}\n`);
    return 0;
  }

  let replayTrace: Trace | null = null;
  if (o.replay) { replayTrace = loadTrace(o.replay); if (!replayTrace) return USAGE_EXIT; }
  const firstSeed = o.seed ?? replayTrace?.seed ?? randomInt(0, 2 ** 31 - 1);
  let last: Execution | null = null;
  for (let run = 0; run < (replayTrace ? 1 : o.runs); run++) {
    const seed = firstSeed + run;
    last = await execute({
      script, args: o.args, strategy: replayTrace ? replayStrategy(replayTrace.strategy.name) : o.strategy,
      params: replayTrace ? replayTrace.strategy.params : o.params, seed, timeoutMs: o.timeoutMs, stallMs: o.stallMs,
      record: !!(o.traceOut || o.report) || replayTrace !== null || o.strategy !== "none",
      replay: replayTrace ? toReplaySpec(replayTrace, (replayTrace as Trace & { holdSet?: string[] }).holdSet ?? null) : null,
      coverage: !!o.report, stdio: "inherit", onStderr: (s) => io.stderr.write(s),
    });
    if (last.outcome.kind !== "ok") break;
  }
  const ex = last!;
  if (o.traceOut && ex.trace) {
    writeFileSync(o.traceOut, JSON.stringify(ex.trace));
    for (const c of ex.result.childTraces) writeFileSync(o.traceOut + c.suffix, JSON.stringify(c.trace));
  }
  if (o.report) writeFileSync(o.report, JSON.stringify(report(ex), null, 2));
  const code = exitCode(ex);
  if (ex.outcome.kind !== "ok") {
    const drawn = ex.trace ? ex.trace.strategy.name : ex.spec.strategy;
    io.stderr.write(failureLine({ hang: ex.outcome.kind === "hang", strategy: ex.spec.strategy, seed: ex.spec.seed, drawn, fingerprint: ex.fingerprint }) +
      (o.traceOut ? `; replay: fuzzfarm node --replay ${o.traceOut} ${o.script}` : "") + "\n");
  }
  return code;
}

function exitCode(ex: Execution): number {
  const r = ex.result;
  if (ex.outcome.kind === "hang") return HANG_EXIT_CODE;
  if (r.exitCode !== null) return r.exitCode;
  const signo = r.signal ? (osConstants.signals as Record<string, number>)[r.signal] ?? 9 : 9;
  return 128 + signo;
}

function report(ex: Execution) {
  const o = ex.outcome;
  return {
    outcome: o.kind === "ok" ? { kind: "ok" } : { kind: o.kind, crashKind: o.kind === "crash" ? o.crashKind : undefined, message: o.message, detail: o.detail },
    exitCode: exitCode(ex),
    seed: ex.spec.seed,
    strategy: ex.trace?.strategy ?? { name: ex.spec.strategy, params: ex.spec.params },
    fingerprint: ex.fingerprint,
    events: ex.trace?.events.length ?? 0,
    racePairs: ex.racePairs,
    racePairCount: ex.racePairs.length,
    coverage: ex.coverage ?? {},
    durationMs: Math.round(ex.result.durationMs),
  };
}
