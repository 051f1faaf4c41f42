// fuzzfarm: the command line. Commands are thin: they parse flags, load the
// config once and call packages. Exit codes: 0 ok, 1 findings, 2 usage or
// infrastructure error (one line on stderr).
// Start-up cost matters (`fuzzfarm node` is a drop-in `node`, `--help` is
// typed by people): this module imports only commander; each command imports
// its code when it runs, `node` / `wasm` are dispatched before commander is
// even consulted, and the config module (zod) loads only for farm commands.
import { Command, CommanderError, Option } from "commander";
import type { GlobalFlags } from "./context";
import { describeStartupError } from "./startup-errors";
import { intFlag, portFlag, workersFlag } from "./flags";

/** Set by the preAction hook before a farm command's action runs (the config module is loaded only for them). */
let configFrom: typeof import("./context").configFrom;

const program = new Command("fuzzfarm")
  .description("A distributed, coverage-guided fuzzing farm for concurrency and ordering bugs")
  .option("--config <file>", "config file (default ./fuzzfarm.config.json)")
  .option("--redis-url <url>", "Redis URL (env FUZZFARM_REDIS_URL / REDIS_URL)")
  .option("--database-url <url>", "PostgreSQL URL (env FUZZFARM_DATABASE_URL / DATABASE_URL)")
  .option("--prefix <name>", "queue key prefix (env FUZZFARM_QUEUE_PREFIX)")
  .exitOverride()
  .showHelpAfterError()
  .hook("preAction", async () => {
    configFrom = (await import("./context")).configFrom;
  });

let exitCode = 0;
const g = () => program.opts<GlobalFlags>();
const run = (fn: () => Promise<number>) => async () => {
  exitCode = await fn();
};

program
  .command("up")
  .description("start missing services (Redis, PostgreSQL), migrate, run coordinator + dashboard + local workers")
  .option("--workers <n>", "local workers (default: one per core)", workersFlag)
  .option("--port <port>", "dashboard port (default 8377)", portFlag)
  .option("--host <host>", "dashboard address (default 127.0.0.1)")
  .option("--demo", "also start a campaign on the bundled example examples/input/magic-bytes.ts")
  .option("--demo-time <seconds>", "length of the demo campaign", intFlag(1, 30 * 86400), 120)
  .action((o) => run(async () => (await import("./commands/up")).upCommand(o, configFrom(g(), { workers: o.workers, httpPort: o.port, httpHost: o.host })))());

program
  .command("worker")
  .description("join a farm as a worker (needs only REDIS_URL)")
  .option("--engines <list>", "engines to load, comma-separated (default input,node,wasm)")
  .option("--concurrency <n>", "jobs at once in this process", intFlag(1, 256), 1)
  .action((o) => run(async () => (await import("./commands/worker")).workerCommand(o, configFrom(g(), { engines: o.engines })))());

program
  .command("fuzz [target]")
  .description("run a fuzzing campaign on a target (a file, or for --engine wasm a generator preset, default `default`) and report its buckets")
  .addOption(new Option("--engine <engine>", "engine (default: inferred from the target)").choices(["input", "node", "wasm"]))
  .option("--time <duration>", "campaign length, e.g. 60s, 5m", "60s")
  .option("--workers <n>", "local workers (default: one per core; 0 = remote workers only)", workersFlag)
  .option("--job-seconds <duration>", "work per job")
  .option("--runs-per-job <n>", "runs per job (node / wasm engines)", intFlag(1, 1_000_000))
  .option("-o, --option <key=value...>", "engine option, e.g. -o timeoutMs=500 -o strategy=pct -o params.depth=3")
  .option("--optimizer <dir>", "wasm: the binaryen package under test (its directory, or one holding node_modules/binaryen)")
  .option("--optimizer-cmd <cmd>", "wasm: a wasm-opt command under test, run as CMD -ON IN.wasm -o OUT.wasm")
  .option("--target-version <v>", "target version (default: git sha of the target's directory)")
  .option("--stop-on-crash", "end the campaign as soon as a first bucket is found")
  .option("--maintenance-wait <duration>", "after the campaign, wait this long for new buckets' replays and minimization", "90s")
  .option("--json", "print one JSON summary when the campaign ends")
  .action((target, o) => run(async () => (await import("./commands/fuzz")).fuzzCommand(target, o, configFrom(g())))());

program
  .command("ci")
  .description("pull-request verdict: campaign on the head (locally or --farm URL), replays on head and base, new / pre-existing / fixed buckets (exit 1 only for new)")
  .requiredOption("--target <path>", "fuzz target inside the repository")
  .option("--time <duration>", "campaign length, e.g. 5m", "5m")
  .option("--base-ref <ref>", "base commit to compare with (default origin/$GITHUB_BASE_REF, else origin/main or main)")
  .addOption(new Option("--engine <engine>", "engine (default: inferred from the target)").choices(["input", "node", "wasm"]))
  .option("--workers <n>", "local workers (default: one per core; local mode only)", workersFlag)
  .option("--job-seconds <duration>", "work per job")
  .option("-o, --option <key=value...>", "engine option")
  .option("--replays <n>", "replays of each bucket on each side", intFlag(1, 1000), 3)
  .option("--sarif <file>", "write SARIF 2.1.0 (one result per new bucket)")
  .option("--summary <file>", "write the Markdown summary (also appended to $GITHUB_STEP_SUMMARY when set)")
  .option("--json", "print the report as JSON")
  .option("--check", "report through a GitHub check run (GITHUB_TOKEN, or FUZZFARM_GITHUB_APP_ID + private key)")
  .option("--check-name <name>", "check run name", "FuzzFarm")
  .option("--check-interval <duration>", "least time between check-run progress updates", "10s")
  .option("--repository <owner/repo>", "repository of the check run (default $GITHUB_REPOSITORY)")
  .option("--github-api-url <url>", "GitHub API root (default $GITHUB_API_URL or https://api.github.com)")
  .option("--head-sha <sha>", "commit the check run is for (default: the pull request's head, else HEAD)")
  .option("--farm <url>", "run the campaign on a running farm through its dashboard's CI API (the farm must read the target at the same path)")
  .option("--token <token>", "the farm's CI token for --farm (default env FUZZFARM_CI_TOKEN)")
  .addOption(new Option("--mode <mode>", "code-change: a pull request, ends once its new buckets settle; batch: push / schedule, the whole --time, base HEAD, marks buckets the head lost fixed").choices(["code-change", "batch"]).default("code-change"))
  .option("--state <dir>", "state directory carried between runs: buckets, history, corpus (default <repo>/.fuzzfarm-state; keep it with actions/cache)")
  .option("--reproducers <dir>", "where each bucket's reproducer file is written, emptied first (default <state>/reproducers)")
  .action((o) => run(async () => (await import("./commands/ci")).ciCommand(o, configFrom(g())))());

program
  .command("status")
  .description("campaigns, workers and queue depth")
  .option("--all", "all campaigns, not only running / recent ones")
  .option("--json", "JSON output")
  .action((o) => run(async () => (await import("./commands/status")).statusCommand(o, configFrom(g())))());

program
  .command("buckets")
  .description("list crash buckets")
  .option("--kind <kind>", "uncaught | rejection | exit | signal | oom | hang | oracle")
  .option("--status <status>", "new | confirmed | fixed | regressed | ignored")
  .option("--campaign <id>", "only buckets seen by this campaign")
  .addOption(new Option("--sort <key>", "order").choices(["count", "last", "first"]).default("count"))
  .option("--limit <n>", "at most n rows", intFlag(1, 100_000), 100)
  .option("--json", "JSON output")
  .action((o) => run(async () => (await import("./commands/buckets")).bucketsCommand(o, configFrom(g())))());

const bucket = program.command("bucket").description("one bucket: show, merge, split, status, note");
bucket
  .command("show <id>", { isDefault: true })
  .description("the whole story of a bucket")
  .option("--json", "JSON output")
  .action((id, o) => run(async () => (await import("./commands/buckets")).bucketShowCommand(id, o, configFrom(g())))());
bucket
  .command("merge <into> <from...>")
  .description("merge buckets <from...> into <into>")
  .action((into, from) => run(async () => (await import("./commands/triage")).mergeCommand(into, from, configFrom(g())))());
bucket
  .command("split <id> <reportIds...>")
  .description("move reports out of a bucket into a new one")
  .action((id, reports) => run(async () => (await import("./commands/triage")).splitCommand(id, reports, configFrom(g())))());
bucket
  .command("status <id> <status>")
  .description("set status: new | confirmed | fixed | regressed | ignored")
  .action((id, status) => run(async () => (await import("./commands/triage")).statusSetCommand(id, status, configFrom(g())))());
bucket
  .command("note <id> <text...>")
  .description("attach a note")
  .action((id, text) => run(async () => (await import("./commands/triage")).noteCommand(id, text.join(" "), configFrom(g())))());

program
  .command("repro <bucket>")
  .description("replay a bucket's reproducer, or a reproducer file of `fuzzfarm ci` (no database needed), and say whether it reproduced (exit 0 yes, 1 no)")
  .option("--runs <n>", "replays", intFlag(1, 100_000), 1)
  .option("--root <dir>", "reproducer file: the repository it runs in (default: the one around the current directory)")
  .option("--json", "JSON output")
  .action((id, o) => run(async () => (await import("./commands/repro")).reproCommand(id, o, configFrom(g())))());

program
  .command("node")
  .description("run a Node.js program under a perturbed event loop (fuzzfarm node --help)")
  .helpOption(false)
  .allowUnknownOption()
  .allowExcessArguments()
  .argument("[args...]")
  .action((args: string[]) => run(async () => (await import("./node-command")).runNodeCli(args))());

program
  .command("wasm")
  .description("Wasm threads harness: litmus, gen, run (fuzzfarm wasm --help)")
  .helpOption(false)
  .allowUnknownOption()
  .allowExcessArguments()
  .argument("[args...]")
  .action((args: string[]) => run(async () => (await import("./wasm-command")).runWasmCli(args))());

async function main(argv: string[]): Promise<number> {
  // `node` and `wasm` pass everything after them through untouched (their own flags, `--`, the script's args).
  const i = argv.findIndex((a) => a === "node" || a === "wasm");
  const firstCmd = argv.findIndex((a) => !a.startsWith("-"));
  if (i >= 0 && i === firstCmd) {
    const rest = argv.slice(i + 1);
    if (argv[i] === "node") return (await import("./node-command")).runNodeCli(rest);
    return (await import("./wasm-command")).runWasmCli(rest);
  }
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    void Promise.all([describeStartupError(e), import("@fuzzfarm/logging")]).then(([line, { terminalText }]) => {
      // Never an empty line: some errors carry no message (fall back to their name or code). A target's text in it stays inert.
      const err = e as { name?: string; code?: string } | null;
      process.stderr.write(`fuzzfarm: ${terminalText(line.trim()) || err?.code || err?.name || "unexpected error"}\n`);
      process.exit(2);
    });
  },
);
