// The real-bug benchmark: per bug, the per-run failure rate of plain `node`,
// of every strategy of the node engine, of the default (`fuzzfarm node` with
// no --strategy), and the failures of the fixed release under the default.
//
//   node --import tsx bench/real-bugs/run.ts [--runs 50] [--only id,id] [--strategies shuffle,delay,horizon@lastShare=0,...]
//        [--plain-runs N] [--fixed-runs N] [--lanes 2] [--timeout 10000]
//
// Installs the pinned releases from npm first (bench/out/real-bugs/<id>/).
// Fuzzed runs go through the engine's `execute` in spawn mode, one fresh
// process per run: what `fuzzfarm node --seed N [--strategy S] driver.js`
// does. Seeds are 1..N (the default column uses 1001..1000+N, so that when
// the default is one of the listed strategies it is a second sample). A cell reads `fails/runs`; `+Nt` counts runs that
// timed out (hang), `+Ne` runs that failed without the driver's "BUG:" line
// (a crash of the driver or the engine), neither is counted in the rate.
// Prints a table; writes bench/out/real-bugs.json.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { execute, NODE_CLI_HELP } from "@fuzzfarm/engine-node";
import { isNodeJobStrategy, NODE_STRATEGIES } from "@fuzzfarm/protocol";
import { mapLimit } from "../lib/node-races";
import { cliDefaultStrategy, installBug, realBugs, type RealBug } from "./lib/bugs";

const argv = process.argv.slice(2);
const opt = (name: string, def: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1]! : def; };
const RUNS = Number(opt("runs", "50"));
const FIXED_RUNS = Number(opt("fixed-runs", String(RUNS)));
const PLAIN_RUNS = Number(opt("plain-runs", String(RUNS)));
const LANES = Number(opt("lanes", "2"));
const TIMEOUT_MS = Number(opt("timeout", "10000"));
const ONLY = opt("only", "");

/** Every strategy the engine knows: the protocol's list plus any case of the preload's makeStrategy. */
function engineStrategies(): string[] {
  const names = new Set<string>(NODE_STRATEGIES.filter((s) => s !== "none"));
  const src = readFileSync(fileURLToPath(new URL("../../packages/engine-node/src/internal/preload/strategies.cjs", import.meta.url)), "utf8");
  for (const m of src.matchAll(/case\s+'([\w-]+)'\s*:/g)) if (m[1] !== "none") names.add(m[1]!);
  return [...names];
}

const DEFAULT = cliDefaultStrategy(NODE_CLI_HELP);
const STRATEGIES = opt("strategies", engineStrategies().join(",")).split(",").filter(Boolean);

type RunKind = "pass" | "bug" | "timeout" | "error";
interface Run { kind: RunKind; note: string }
interface Cell { runs: number; bug: number; timeout: number; error: number; first: number; rate: number; samples: string[] }

/** The run's kind, and for a failure the line that says why (the driver's BUG line, else the last stderr line). */
function judge(code: number | null, stderr: string, timedOut: boolean): Run {
  const kind: RunKind = timedOut ? "timeout" : code === 0 ? "pass" : /^BUG: /m.test(stderr) ? "bug" : "error";
  const lines = stderr.split("\n").map((l) => l.trim()).filter(Boolean);
  const note = kind === "pass" ? "" : (lines.find((l) => l.startsWith("BUG: ")) ?? lines.find((l) => /Error|error/.test(l)) ?? lines.at(-1) ?? `exit ${code}`).slice(0, 200);
  return { kind, note };
}

function cell(runs: Run[]): Cell {
  const n = (k: RunKind) => runs.filter((x) => x.kind === k).length;
  const samples = [...new Set(runs.filter((r) => r.kind !== "pass").map((r) => `${r.kind}: ${r.note}`))].slice(0, 3);
  return { runs: runs.length, bug: n("bug"), timeout: n("timeout"), error: n("error"), first: runs.findIndex((r) => r.kind === "bug") + 1, rate: runs.length ? n("bug") / runs.length : 0, samples };
}

const show = (c: Cell) => `${c.bug}/${c.runs}${c.timeout ? ` +${c.timeout}t` : ""}${c.error ? ` +${c.error}e` : ""}`;

/** One run of plain `node driver.js <release>`. */
const plainRun = (bug: RealBug, release: string) => new Promise<Run>((resolve) => {
  const c = spawn(process.execPath, [bug.driver, release], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  c.stderr!.on("data", (d: Buffer) => { if (stderr.length < 65536) stderr += d.toString(); });
  let timedOut = false;
  const t = setTimeout(() => { timedOut = true; c.kill("SIGKILL"); }, TIMEOUT_MS);
  c.on("close", (code) => { clearTimeout(t); resolve(judge(code, stderr, timedOut)); });
});

/** One run under the fuzzer (spawn mode, like `fuzzfarm node`). */
// A strategy column may set parameters: `horizon@lastShare=0&ioProb=0.8`
// (a baseline of the same strategy measured in the same run).
async function fuzzRun(bug: RealBug, release: string, spec: string, seed: number): Promise<Run> {
  const [strategy, query] = spec.split("@") as [string, string | undefined];
  if (!isNodeJobStrategy(strategy)) throw new Error(`unknown strategy ${strategy}`);
  const params = Object.fromEntries((query ?? "").split("&").filter(Boolean).map((kv) => { const [k, v] = kv.split("="); return [k!, Number(v)]; }));
  const ex = await execute({ script: bug.driver, args: [release], strategy, params, seed, timeoutMs: TIMEOUT_MS, cwd: bug.dir });
  return judge(ex.result.exitCode, ex.result.stderr, ex.outcome.kind === "hang" || ex.result.killed);
}

const seeds = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);

const bugs = realBugs(ONLY);
for (const b of bugs) {
  const r = installBug(b, (s) => console.error(s));
  if (!r.ok) { console.error(`${b.id}: install failed: ${r.message}`); process.exit(1); }
}

const cols = ["plain", ...STRATEGIES, `default(${DEFAULT})`, "fixed@default"];
console.log(`runs per cell: ${RUNS} (plain: ${PLAIN_RUNS}, fixed: ${FIXED_RUNS}); cell = bug manifestations/runs, +Nt timeouts (${TIMEOUT_MS} ms), +Ne other failures; lanes ${LANES}`);
console.log(["bug".padEnd(24), ...cols.map((c) => c.padEnd(14))].join(" "));
const rows: Record<string, unknown>[] = [];
for (const b of bugs) {
  const cells: Record<string, Cell> = {};
  cells.plain = cell(await mapLimit(seeds(PLAIN_RUNS), LANES, () => plainRun(b, "buggy")));
  for (const s of STRATEGIES) cells[s] = cell(await mapLimit(seeds(RUNS), LANES, (seed) => fuzzRun(b, "buggy", s, seed)));
  const def = cell(await mapLimit(seeds(RUNS, 1001), LANES, (seed) => fuzzRun(b, "buggy", DEFAULT, seed)));
  cells[`default(${DEFAULT})`] = def;
  const fixedKinds = await mapLimit(seeds(FIXED_RUNS, 1001), LANES, (seed) => fuzzRun(b, "fixed", DEFAULT, seed));
  // For the fixed release every non-zero exit is a false alarm, marked or not.
  const fixed = cell(fixedKinds.map((r) => (r.kind === "error" ? { ...r, kind: "bug" as const } : r)));
  cells["fixed@default"] = fixed;
  console.log([b.id.padEnd(24), ...cols.map((c) => show(cells[c]!).padEnd(14))].join(" "));
  rows.push({ id: b.id, areas: b.areas, releases: b.dependencies, cells });
}

const rate = (id: string, col: string) => (rows.find((r) => r.id === id)!.cells as Record<string, Cell>)[col]!.rate;
const defCol = `default(${DEFAULT})`;
const defRates = bugs.map((b) => rate(b.id, defCol)).sort((a, b) => a - b);
const median = defRates.length ? (defRates[(defRates.length - 1) >> 1]! + defRates[defRates.length >> 1]!) / 2 : 0;
console.log(`default (${DEFAULT}): triggers ${defRates.filter((r) => r > 0).length}/${bugs.length} bugs; per-run rate min ${(defRates[0] ?? 0).toFixed(2)}, median ${median.toFixed(2)}` +
  `; plain node: ${bugs.filter((b) => rate(b.id, "plain") > 0).length} bugs with any failure`);
mkdirSync(new URL("../out/", import.meta.url), { recursive: true });
writeFileSync(new URL("../out/real-bugs.json", import.meta.url), JSON.stringify({
  date: new Date().toISOString(), runs: RUNS, plainRuns: PLAIN_RUNS, fixedRuns: FIXED_RUNS, lanes: LANES, timeoutMs: TIMEOUT_MS, defaultStrategy: DEFAULT, strategies: STRATEGIES, rows,
}, null, 2));
