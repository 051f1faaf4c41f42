// Argument parsing for `fuzzfarm node [options] [--] script.js [args...]`.
// Options end at the script: everything after it belongs to the program.
import { NODE_STRATEGIES, FuzzFarmError, isNodeStrategy, type NodeStrategy } from "@fuzzfarm/protocol";

export interface CliOptions {
  help: boolean;
  seed: number | null;
  strategy: NodeStrategy;
  params: Record<string, number>;
  /** Wall-clock limit per run, ms; 0 (default): none, like `node`. */
  timeoutMs: number;
  /** A hang is no delivered callback for this long while the program still waits, ms; 0: never. Default 15000. */
  stallMs: number;
  runs: number;
  traceOut: string | null;
  replay: string | null;
  report: string | null;
  minimize: string | null;
  script: string | null;
  args: string[];
}

export const HELP = `Usage: fuzzfarm node [options] [--] script.js [args...]

Runs script.js like \`node script.js\` (same stdout, stderr and exit code) while
perturbing the order of its asynchronous completions within what Node
guarantees. CommonJS, ESM and TypeScript (through tsx) programs. Child node
processes it starts (process.execPath, fork) run under the fuzzer too, each
with its own seed derived from the run's seed (traces: FILE.child-N.json).

Options:
  --seed N            seed of the perturbation (default: random; printed on failure)
  --strategy S        shuffle | delay | demux | pct | horizon | late | mix | none (default: mix)
                        shuffle  hold completions to the next check phase and
                                 release the ready ones in random order
                        delay    delay some completions by 1..max ms
                        demux    hand completions over one at a time, thread-pool
                                 work spread by 0..spread ms
                        pct      random site priorities, d-1 priority drops;
                                 low priority = longer hold
                        horizon  delays sized by the program's own timers (cross
                                 one, wait for 1..3 other callbacks or until
                                 nothing else is in flight), bounded by
                                 its guards (socket idle timeouts, timers armed
                                 with the operation); close callbacks deferred;
                                 timers and whole loop turns run late
                        late     slow I/O: every completion after the program's
                                 timers, then when the program is quiet, one
                                 at a time, newest first (or oldest first:
                                 lifo=0); bounded by its guards
                        mix      per run: late 9/10 (newest first in 1/3 of
                                 them, oldest first in 2/3), pct 1/10,
                                 parameters drawn too
                        none     no perturbation (record only)
  --hold-prob P       shuffle: probability a completion is held (default 0.8)
  --delay-prob P      delay: probability a completion is delayed (default 0.3)
  --max-delay MS      delay, pct: largest hold in ms (default 50)
  --spread MS         demux: largest extra spread of thread-pool work (default 3)
  --depth D           pct: bug depth d (default 3)
  --events N          pct: expected number of events (default 60)
  --param K=V         any strategy parameter by name (e.g. maxDelayMs=20)
  --runs N            run up to N times (seeds seed, seed+1, ...), stop at the first failure
  --stall MS          a hang: no callback delivered for MS ms although the
                      program still waits (on no timer of its own and no child
                      process); exit 124 and list the pending handles and
                      timers (default 15000; 0: never)
  --timeout MS        also a hang: a run still alive after MS ms (default: no
                      wall-clock limit, a long suite runs as long as it needs)
  --trace-out FILE    write the schedule trace (every delivered callback) to FILE
  --replay FILE       force the schedule recorded in FILE (a --trace-out file)
  --report FILE       write a JSON report: outcome, seed, strategy, fingerprint,
                      race-pair coverage, istanbul coverage of the program
  --minimize TRACE    shrink the perturbations of the failing run TRACE to a
                      minimal set that still fails, and explain it
  -h, --help          this help

Exit code: the program's own; 124 for a hang; 2 for a usage error.
`;

const PARAM_FLAGS: Record<string, string> = {
  "--hold-prob": "holdProb", "--delay-prob": "delayProb", "--max-delay": "maxDelayMs",
  "--spread": "spreadMs", "--depth": "depth", "--events": "events",
};

function num(flag: string, v: string | undefined): number {
  const n = Number(v);
  if (v === undefined || v === "" || !Number.isFinite(n)) throw new FuzzFarmError("FF_ERR_CONFIG", `${flag} needs a number, got ${v === undefined ? "nothing" : JSON.stringify(v)}`);
  return n;
}

/**
 * The line a failing or hanging run ends with, spawned or in process:
 * `fuzzfarm node: failure with --strategy S --seed N (drawn, fingerprint F)`.
 */
export function failureLine(r: { hang: boolean; strategy: string; seed: number; drawn: string; fingerprint: string }): string {
  return `fuzzfarm node: ${r.hang ? "hang" : "failure"} with --strategy ${r.strategy} --seed ${r.seed} (${r.drawn}, fingerprint ${r.fingerprint})`;
}

export function parseCliArgs(argv: string[]): CliOptions {
  const o: CliOptions = {
    help: false, seed: null, strategy: "mix", params: {}, timeoutMs: 0, stallMs: 15_000, runs: 1,
    traceOut: null, replay: null, report: null, minimize: null, script: null, args: [],
  };
  let i = 0;
  const value = (flag: string): string => {
    const v = argv[++i];
    if (v === undefined) throw new FuzzFarmError("FF_ERR_CONFIG", `${flag} needs a value`);
    return v;
  };
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") { i++; break; }
    if (!a.startsWith("-") || a === "-") break;
    const [flag, inline] = a.includes("=") && a.startsWith("--") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const val = () => (inline !== undefined ? inline : value(flag));
    switch (flag) {
      case "-h": case "--help": o.help = true; break;
      case "--seed": o.seed = Math.trunc(num(flag, val())); break;
      case "--strategy": {
        const s = val();
        if (!isNodeStrategy(s)) throw new FuzzFarmError("FF_ERR_CONFIG", `unknown strategy ${JSON.stringify(s)} (one of ${NODE_STRATEGIES.join(", ")})`);
        o.strategy = s;
        break;
      }
      case "--timeout": o.timeoutMs = Math.max(0, num(flag, val())); break;
      case "--stall": o.stallMs = Math.max(0, num(flag, val())); break;
      case "--runs": o.runs = Math.max(1, Math.trunc(num(flag, val()))); break;
      case "--trace-out": o.traceOut = val(); break;
      case "--replay": o.replay = val(); break;
      case "--report": o.report = val(); break;
      case "--minimize": o.minimize = val(); break;
      case "--param": {
        const kv = val();
        const eq = kv.indexOf("=");
        if (eq <= 0) throw new FuzzFarmError("FF_ERR_CONFIG", `--param needs K=V, got ${JSON.stringify(kv)}`);
        o.params[kv.slice(0, eq)] = num(`--param ${kv.slice(0, eq)}`, kv.slice(eq + 1));
        break;
      }
      default:
        if (PARAM_FLAGS[flag]) { o.params[PARAM_FLAGS[flag]!] = num(flag, val()); break; }
        throw new FuzzFarmError("FF_ERR_CONFIG", `unknown option ${flag} (see fuzzfarm node --help)`);
    }
  }
  if (i < argv.length) { o.script = argv[i]!; o.args = argv.slice(i + 1); }
  return o;
}
