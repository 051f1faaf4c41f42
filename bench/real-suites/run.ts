// Real packages' own test suites under `node` and under `fuzzfarm node`.
//
//   node --import tsx bench/real-suites/run.ts [--only a,b] [--seeds N] [--no-perturb] [--jobs N]
//
// Installs every suite of suites.ts from npm (pinned, into
// $TMPDIR/fuzzfarm-real-suites/<pkg>), runs each test file as a program under
// plain `node` and under `fuzzfarm node --strategy none` in the same run and
// prints pass/fail counts for both (they must match: the interceptor alone
// changes nothing). Then, unless --no-perturb, each file under the default
// strategy with seeds 1..N: every failing (file, seed) is listed with its
// failing tests and its saved trace (for `fuzzfarm node --replay` /
// `--minimize`, triage in docs/found-bugs.md).
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FUZZFARM_NODE as BIN, mapLimit, npmInstall, pad, padl, runFile as runIn, testFiles as filesUnder } from "./lib";
import { SUITES, type Suite } from "./suites";

const WORK = join(tmpdir(), "fuzzfarm-real-suites");
const KILL_MS = 180_000;

const argv = process.argv.slice(2);
const opt = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const only = opt("--only")?.split(",");
const seeds = Number(opt("--seeds") ?? 3);
const perturb = !argv.includes("--no-perturb");
const jobs = Math.max(1, Number(opt("--jobs") ?? 1));

const slug = (s: Suite) => s.pkg.replace(/[@/]/g, "_");

function install(s: Suite): string {
  const dir = join(WORK, slug(s));
  const r = npmInstall(dir, `real-suite-${slug(s)}`, { [s.pkg]: s.version, ...s.extra });
  if (!r.ok) throw new Error(`npm install ${s.pkg}@${s.version} failed: ${r.why}`);
  return join(dir, "node_modules", s.pkg);
}

const testFiles = (s: Suite, pkgDir: string) => filesUnder(pkgDir, s.files, s.exclude);
const runFile = (cmd: string[], cwd: string, runner: Suite["runner"]) => runIn(cmd, cwd, runner, KILL_MS);

async function main() {
  mkdirSync(join(WORK, "traces"), { recursive: true });
  const suites = SUITES.filter((s) => !only || only.includes(s.pkg));
  const rows: string[] = [];
  const mismatches: string[] = [];
  const perturbed: string[] = [];
  const totals = { files: 0, plain: [0, 0], none: [0, 0], pertRuns: 0, pertFailRuns: 0 };
  const results: unknown[] = [];
  console.log(`real suites: ${suites.length} packages; work dir ${WORK}; perturbation ${perturb ? `default strategy, seeds 1..${seeds}` : "off"}`);
  for (const s of suites) {
    const pkgDir = install(s);
    const files = testFiles(s, pkgDir);
    const per = await mapLimit(files, jobs, async (f) => {
      const plain = await runFile([f], pkgDir, s.runner);
      const none = await runFile([BIN, "--strategy", "none", f], pkgDir, s.runner);
      if (plain.pass !== none.pass || plain.fail !== none.fail) {
        mismatches.push(`${s.pkg} ${f}: node ${plain.pass}/${plain.fail}, fuzzfarm none ${none.pass}/${none.fail}\n${none.out.slice(-1500)}`);
        console.log(`  differs: ${s.pkg} ${f}: node ${plain.pass}/${plain.fail}, fuzzfarm none ${none.pass}/${none.fail}`);
      }
      const pert: { seed: number; pass: number; fail: number; failed: string[]; trace: string }[] = [];
      if (perturb) {
        for (let seed = 1; seed <= seeds; seed++) {
          const trace = join(WORK, "traces", `${slug(s)}__${f.replace(/\//g, "_")}__${seed}.json`);
          const r = await runFile([BIN, "--seed", String(seed), "--trace-out", trace, f], pkgDir, s.runner);
          pert.push({ seed, pass: r.pass, fail: r.fail, failed: r.failed, trace });
        }
      }
      return { f, plain, none, pert };
    });
    const sum = (k: "plain" | "none") => per.reduce((a, r) => [a[0]! + r[k].pass, a[1]! + r[k].fail], [0, 0]);
    const p = sum("plain"), n = sum("none");
    const ms = (k: "plain" | "none") => per.reduce((a, r) => a + r[k].ms, 0) / 1000;
    let pertFail = 0;
    for (const r of per) {
      for (const x of r.pert) {
        totals.pertRuns++;
        // a perturbed run fails when it passes fewer tests or fails more than plain node did
        if (x.fail > r.plain.fail || x.pass < r.plain.pass) {
          pertFail++; totals.pertFailRuns++;
          const newFails = x.failed.filter((t) => !r.plain.failed.includes(t));
          perturbed.push(`${s.pkg} ${r.f} --seed ${x.seed}: ${x.pass}/${x.fail} (node ${r.plain.pass}/${r.plain.fail}); failing: ${newFails.slice(0, 4).join(" | ") || x.failed.slice(0, 4).join(" | ")}\n    trace: ${x.trace}`);
        }
      }
    }
    totals.files += files.length;
    totals.plain[0] += p[0]!; totals.plain[1] += p[1]!; totals.none[0] += n[0]!; totals.none[1] += n[1]!;
    rows.push(`${pad(`${s.pkg}@${s.version}`, 36)} ${pad(s.runner, 9)} ${padl(files.length, 5)} ${padl(`${p[0]}/${p[1]}`, 10)} ${padl(`${n[0]}/${n[1]}`, 10)} ${pad(p[0] === n[0] && p[1] === n[1] ? "yes" : "NO", 5)} ${padl(ms("plain").toFixed(1), 7)} ${padl(ms("none").toFixed(1), 7)}` +
      (perturb ? ` ${padl(`${pertFail}/${files.length * seeds}`, 9)}` : ""));
    console.log(rows[rows.length - 1]);
    results.push({ pkg: s.pkg, version: s.version, files: per.map((r) => ({ file: r.f, plain: [r.plain.pass, r.plain.fail], none: [r.none.pass, r.none.fail], perturbed: r.pert.map((x) => ({ seed: x.seed, pass: x.pass, fail: x.fail, failed: x.failed, trace: x.trace })) })) });
  }
  console.log("");
  console.log(`${pad("package", 36)} ${pad("runner", 9)} ${padl("files", 5)} ${padl("node p/f", 10)} ${padl("none p/f", 10)} ${pad("same", 5)} ${padl("node s", 7)} ${padl("none s", 7)}` + (perturb ? ` ${padl("pert fail", 9)}` : ""));
  for (const r of rows) console.log(r);
  console.log(`${pad("total", 36)} ${pad("", 9)} ${padl(totals.files, 5)} ${padl(`${totals.plain[0]}/${totals.plain[1]}`, 10)} ${padl(`${totals.none[0]}/${totals.none[1]}`, 10)} ${pad(mismatches.length ? "NO" : "yes", 5)}` +
    (perturb ? `  perturbed runs failing: ${totals.pertFailRuns}/${totals.pertRuns}` : ""));
  if (mismatches.length) { console.log("\nnode vs fuzzfarm node --strategy none differ:"); for (const m of mismatches) console.log(`- ${m}`); }
  if (perturbed.length) { console.log("\nfailures under perturbation (triage: docs/found-bugs.md):"); for (const m of perturbed) console.log(`- ${m}`); }
  writeFileSync(join(WORK, "results.json"), JSON.stringify(results, null, 2));
  console.log(`\nresults: ${join(WORK, "results.json")}`);
  process.exitCode = mismatches.length ? 1 : 0;
}

await main();
