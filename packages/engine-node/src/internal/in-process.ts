// `fuzzfarm node script.js` without a second process: the preload is
// required into this very process and the program runs as its main module
// (Module.runMain, as `node script.js` does). A drop-in `node` that test
// runners start hundreds of times then costs one Node start-up instead of two
// (bench/cli-start.ts).
//
// Only for runs that need nothing from a parent process: no --timeout (its
// last resort is the parent killing a blocked loop), no --trace-out,
// --report, --replay, --minimize or --runs (the parent reads the trace and
// runs again), no TypeScript target (tsx's loader goes in with node flags),
// and a process started without node flags or NODE_OPTIONS (the spawned run
// gets neither). Everything else the spawned run does happens here too:
//   - the config file and UV_THREADPOOL_SIZE=1 (record/replay) reach the
//     preload through the environment before it loads. The caller must not
//     have used libuv's thread pool yet (a pool of 4 is fixed at its first
//     use; an ES module entry point has used it: Node reads it with
//     fs.promises): only the built CommonJS entry calls this;
//   - the stall watchdog and the hang report (exit 124) are the preload's;
//   - the interceptor's frames, and this command's own, are removed from
//     what reaches stderr (error reports and stderr writes), as the launcher
//     removes them from the child's stderr;
//   - a failing run ends with the same "failure with --strategy S --seed N"
//     line (written at exit: for an uncaught error, before Node's report of
//     it, which Node writes after the exit listeners ran);
//   - exit codes are the program's own, and a signal ends this process as it
//     ends `node script.js` (the launcher exits 128+N instead); no exit
//     listener runs then, so the run's small config folder in the temp
//     directory stays, as it does when a launcher is killed.
import { existsSync, rmSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { resolve } from "node:path";
import { failureLine, parseCliArgs, type CliOptions } from "./cli-args";
import { PRELOAD, PRELOAD_DIR, execArgvFor } from "./paths";
import { readTrace, writeRunFiles } from "./run-files";
import { fingerprint } from "./trace";

/** Whether this run can go without a parent process (see the header). */
export function runsInProcess(o: CliOptions, proc: Pick<NodeJS.Process, "env" | "execArgv"> = process): boolean {
  return !o.help && o.script !== null && !o.minimize && !o.replay && !o.traceOut && !o.report && o.runs === 1 && o.timeoutMs === 0 &&
    execArgvFor(o.script).length === 0 && !proc.env.NODE_OPTIONS && proc.execArgv.length === 0;
}

/**
 * `fuzzfarm node ...` (argv: what follows `node`) started in this process
 * when the run allows it: returns true once the program has started (this
 * process is the program from then on), false when the command needs
 * runNodeCli (options that need a parent, help, usage errors). Call it from
 * a CommonJS entry point before anything used the thread pool.
 * @param ownFiles files of the caller whose stack frames are removed like the interceptor's
 */
export function startNodeCliInProcess(argv: string[], ownFiles: string[] = []): boolean {
  let o: CliOptions;
  try { o = parseCliArgs(argv); } catch { return false; }
  if (!runsInProcess(o)) return false;
  const script = resolve(o.script!);
  if (!existsSync(script)) return false;

  // the range of the launcher's randomInt(0, 2 ** 31 - 1), without loading node:crypto at start-up
  const seed = o.seed ?? Math.floor(Math.random() * (2 ** 31 - 1));
  const record = o.strategy !== "none";
  const { dir, cfgFile, traceOut } = writeRunFiles({
    strategy: o.strategy, params: o.params, seed, timeoutMs: 0, stallMs: o.stallMs, record, root: process.cwd(), replay: null, coverage: false,
  });
  process.env.FUZZFARM_NODE = cfgFile;
  if (record) process.env.UV_THREADPOOL_SIZE = "1";
  stripOwnFramesFromStderr([PRELOAD_DIR, ...ownFiles]);
  // The preload reads (and removes) FUZZFARM_NODE, installs its hooks and its exit listener, which writes the trace.
  createRequire(PRELOAD)(PRELOAD);
  // Registered after the preload's: the trace is written when this runs.
  process.on("exit", (code) => {
    try {
      if (code !== 0) {
        const trace = readTrace(traceOut);
        const drawn = trace ? trace.strategy.name : o.strategy;
        process.stderr.write(failureLine({ hang: !!trace?.hang, strategy: o.strategy, seed, drawn, fingerprint: trace ? fingerprint(trace) : "" }) + "\n");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  process.argv = [process.argv[0]!, script, ...o.args];
  // This front was the main module; the program's becomes it (CommonJS), or there is none (an ES module, as under node).
  delete (process as { mainModule?: unknown }).mainModule;
  // Not caught: an error of the program's first turn is the program's uncaught error, as under node.
  Module.runMain(script);
  return true;
}


/**
 * Lines naming one of `needles` are dropped from uncaught-error reports
 * (Node prints err.stack after the monitors ran) and from writes to
 * process.stderr. The stream is wrapped when the program first touches it,
 * so a program that never writes to stderr never opens it, as under node.
 */
function stripOwnFramesFromStderr(needles: string[]): void {
  const bottom = mainModuleFrame();
  const strip = (s: string) => (needles.some((n) => s.includes(n)) || s.includes(RUN_MAIN_FRAME) ? stripLines(s, needles, bottom) : s);
  process.on("uncaughtExceptionMonitor", (err) => {
    if (!(err instanceof Error) || typeof err.stack !== "string") return;
    try { err.stack = strip(err.stack); } catch { /* a frozen error keeps its stack */ }
  });
  const desc = Object.getOwnPropertyDescriptor(process, "stderr");
  if (!desc?.get || !desc.configurable) return;
  const getStderr = desc.get;
  let wrapped = false;
  Object.defineProperty(process, "stderr", {
    configurable: true, enumerable: desc.enumerable,
    get() {
      const stream = getStderr.call(process) as NodeJS.WriteStream;
      if (!wrapped) {
        wrapped = true;
        const write = stream.write;
        stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
          const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) && needles.some((n) => chunk.includes(n)) ? chunk.toString() : null;
          return (write as (...a: unknown[]) => boolean).call(this, text === null ? chunk : strip(text), ...rest);
        } as typeof stream.write;
      }
      return stream;
    },
  });
}

/** The frame that runs the program's main module; below it, a stack holds this command's own start-up. */
const RUN_MAIN_FRAME = "executeUserEntryPoint [as runMain]";

/**
 * The frame below RUN_MAIN_FRAME under node: the bottom of this process's
 * start-up stack (`at node:internal/main/run_main_module:L:C`), read while
 * the front still runs as the main module.
 */
function mainModuleFrame(): string | null {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Infinity;
  const last = new Error().stack!.split("\n").pop()!;
  Error.stackTraceLimit = limit;
  return /^\s+at node:internal\/main\/run_main_module[:\d]*$/.test(last) ? last : null;
}

/**
 * Drops lines naming a needle, and replaces the frames below the main
 * module's runner (this command's start-up) by the one frame node has there.
 */
function stripLines(s: string, needles: string[], bottom: string | null): string {
  const out: string[] = [];
  let below: "no" | "first" | "rest" = "no";
  for (const l of s.split("\n")) {
    if (below !== "no" && /^\s+at /.test(l)) {
      if (below === "first" && bottom) out.push(bottom);
      below = "rest";
      continue;
    }
    below = l.includes(RUN_MAIN_FRAME) ? "first" : "no";
    if (!needles.some((n) => l.includes(n))) out.push(l);
  }
  return out.join("\n");
}
