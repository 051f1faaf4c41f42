// The race hunt: npm packages' own test suites under `fuzzfarm node`.
//
//   nice -n 10 node --import tsx bench/hunt/run.ts [--only a,b] [--skip a,b] [--budget 60]
//       [--plain 2] [--kill 120] [--work DIR] [--git-mirrors DIR] [--install-only]
//   node --import tsx bench/hunt/run.ts --report results.json[,more.json]   (the figures again, runs merged)
//
// For each package of packages.ts, one at a time: install it pinned (npm
// tarball, or its repository at a commit: from DIR/<owner>+<name>/repo when
// --git-mirrors names a folder of mirrors, else cloned from GitHub) with the
// devDependencies its tests need; run every test file --plain times under
// plain `node` (a file that fails in any plain run is set aside, with how
// often); then, for --budget seconds of the package's wall clock, the kept
// files round-robin under `fuzzfarm node` (default strategy, seeds 1, 2, ...).
// A perturbed run fails when it passes fewer tests or fails more than the
// file's best plain run. Failures are bucketed by (package, file, first new
// failing test) and given the verdict triage.ts records for that bucket
// (untriaged otherwise). Prints the figures (packages, files, tests,
// executions, time, failures by verdict); results.json in the work dir holds
// every run, the trace of every failing one (for `--replay` / `--minimize`).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FUZZFARM_NODE, fileArgs, npmInstall, pad, padl, runFile, testFiles, type Counts, type Runner } from "../real-suites/lib";
import { PACKAGES, type HuntPackage } from "./packages";
import { VERDICTS } from "./triage";

const argv = process.argv.slice(2);
const opt = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const only = opt("--only")?.split(",");
const skip = opt("--skip")?.split(",") ?? [];
const budgetS = Number(opt("--budget") ?? 60);
const plainRuns = Math.max(1, Number(opt("--plain") ?? 2));
const killMs = Number(opt("--kill") ?? 120) * 1000;
const WORK = opt("--work") ?? join(tmpdir(), "fuzzfarm-hunt");
const mirrors = opt("--git-mirrors");
const installOnly = argv.includes("--install-only");

const slug = (p: HuntPackage) => p.pkg.replace(/[@/]/g, "_");

/** The package's folder with its tests and their dependencies installed, or why not. */
function install(p: HuntPackage): { dir: string } | { why: string } {
  const base = join(WORK, slug(p));
  if ("npm" in p.source) {
    const own = join(base, "node_modules", p.pkg, "package.json");
    // first the package alone (its package.json names the devDependency ranges), then with them
    if (!existsSync(own)) { const r = npmInstall(base, `hunt-${slug(p)}`, { [p.pkg]: p.source.npm }); if (!r.ok) return { why: r.why }; }
    const devRanges = JSON.parse(readFileSync(own, "utf8")).devDependencies ?? {};
    const deps = { [p.pkg]: p.source.npm, ...pick(devRanges, p.dev ?? []), ...p.extra };
    const r = npmInstall(base, `hunt-${slug(p)}`, deps);
    return r.ok ? { dir: join(base, "node_modules", p.pkg) } : { why: r.why };
  }
  const src = join(base, "src");
  const pkgDir = p.source.dir ? join(src, p.source.dir) : src;
  const stamp = join(base, "commit");
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== p.source.commit) {
    rmSync(src, { recursive: true, force: true });
    mkdirSync(src, { recursive: true });
    const [owner, name] = p.source.git.split("/");
    let gitDir = mirrors ? join(mirrors, `${owner}+${name}`, "repo") : "";
    if (!gitDir || !existsSync(gitDir)) {
      gitDir = join(base, "clone.git");
      const c = spawnSync("git", ["clone", "--bare", "--filter=blob:none", `https://github.com/${p.source.git}`, gitDir], { encoding: "utf8" });
      if (c.status !== 0) return { why: `git clone ${p.source.git}: ${c.stderr.trim().split("\n").pop()}` };
    }
    const a = spawnSync("sh", ["-c", `git --git-dir="${gitDir}" archive ${p.source.commit} | tar -x -C "${src}"`], { encoding: "utf8" });
    if (a.status !== 0) return { why: `git archive ${p.source.commit}: ${a.stderr.trim()}` };
    writeFileSync(stamp, p.source.commit);
  }
  // the dependencies go one folder up: node resolves them from the checkout, and its own package.json stays as shipped
  const own = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const deps = { ...own.dependencies, ...pick(own.devDependencies ?? {}, p.dev ?? []), ...p.extra };
  const r = npmInstall(base, `hunt-${slug(p)}`, deps);
  return r.ok ? { dir: pkgDir } : { why: r.why };
}

function pick(ranges: Record<string, string>, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) out[n] = ranges[n] ?? "latest";
  return out;
}

type Res = Pick<Counts, "pass" | "fail" | "failed" | "ms" | "killed" | "code"> & { tail: string };

async function run(p: HuntPackage, dir: string, file: string, fuzz: string[] | null): Promise<Res> {
  const runner: Runner = p.runner === "exit" ? "tap" : p.runner;
  const args = fileArgs(runner, dir, file, p.runnerArgs);
  const r = await runFile(fuzz ? [FUZZFARM_NODE, ...fuzz, ...args] : args, dir, runner, killMs, p.env);
  const res = p.runner === "exit" ? { ...r, pass: r.code === 0 ? 1 : 0, fail: r.code === 0 ? 0 : 1, failed: r.code === 0 ? [] : [`(exit ${r.code})`] } : r;
  return { pass: res.pass, fail: res.fail, failed: res.failed, ms: res.ms, killed: res.killed, code: res.code, tail: r.out.slice(-2000) };
}

interface FileState { file: string; plain: Res[]; setAside: boolean }
interface Failure { pkg: string; file: string; seed: number; test: string; pass: number; fail: number; trace: string; tail: string; killed: boolean }

async function main() {
  mkdirSync(join(WORK, "traces"), { recursive: true });
  const list = PACKAGES.filter((p) => (!only || only.includes(p.pkg)) && !skip.includes(p.pkg));
  console.log(`hunt: ${list.length} packages; work dir ${WORK}; ${plainRuns} plain runs per file, then ${budgetS} s of perturbed runs per package (fuzzfarm node, default strategy)`);
  const t0 = performance.now();
  const failures: Failure[] = [];
  const notRun: string[] = [];
  const tot = { pkgs: 0, files: 0, tests: 0, plainExec: 0, pertExec: 0, pertS: 0, plainS: 0 };
  const results: unknown[] = [];
  for (const p of list) {
    const inst = install(p);
    if ("why" in inst) { notRun.push(`${p.pkg}: install failed: ${inst.why}`); console.log(`  ${p.pkg}: install failed: ${inst.why}`); continue; }
    let files: string[];
    try { files = testFiles(inst.dir, p.files, p.exclude, p.roots); fileArgs(p.runner === "exit" ? "tap" : p.runner, inst.dir, files[0] ?? "x", p.runnerArgs); }
    catch (e) { notRun.push(`${p.pkg}: ${(e as Error).message.split("\n")[0]}`); console.log(`  ${p.pkg}: ${(e as Error).message.split("\n")[0]}`); continue; }
    if (!files.length) { notRun.push(`${p.pkg}: no test file matched ${p.files}`); console.log(`  ${p.pkg}: no test files`); continue; }
    if (installOnly) { console.log(`  ${p.pkg}@${p.version}: installed, ${files.length} files`); continue; }
    const states: FileState[] = [];
    const tp = performance.now();
    for (const f of files) {
      const plain: Res[] = [];
      for (let i = 0; i < plainRuns; i++) plain.push(await run(p, inst.dir, f, null));
      const bad = plain.filter((r) => r.fail > 0 || r.pass === 0).length;
      states.push({ file: f, plain, setAside: bad > 0 });
      if (bad) console.log(`  set aside: ${f}: failed ${bad} of ${plainRuns} plain runs (${[...new Set(plain.flatMap((r) => r.failed))].slice(0, 2).join(" | ").slice(0, 160)})`);
    }
    const plainS = (performance.now() - tp) / 1000;
    const kept = states.filter((s) => !s.setAside);
    const tests = states.reduce((a, s) => a + Math.max(...s.plain.map((r) => r.pass + r.fail)), 0);
    // perturbed: kept files round-robin, one seed per pass, until the budget is spent
    const tq = performance.now();
    let execs = 0, failed = 0, seed = 0;
    const pert: { file: string; seed: number; pass: number; fail: number; ms: number }[] = [];
    while (kept.length && (performance.now() - tq) / 1000 < budgetS) {
      seed++;
      for (const s of kept) {
        if ((performance.now() - tq) / 1000 >= budgetS) break;
        const trace = join(WORK, "traces", `${slug(p)}__${s.file.replace(/\//g, "_")}__${seed}.json`);
        const r = await run(p, inst.dir, s.file, ["--seed", String(seed), "--trace-out", trace]);
        execs++;
        pert.push({ file: s.file, seed, pass: r.pass, fail: r.fail, ms: Math.round(r.ms) });
        const bestPass = Math.max(...s.plain.map((x) => x.pass));
        if (r.fail > 0 || r.pass < bestPass) {
          failed++;
          const test = r.killed ? `(killed after ${killMs / 1000} s)` : (r.failed[0] ?? "(fewer tests passed)");
          failures.push({ pkg: p.pkg, file: s.file, seed, test, pass: r.pass, fail: r.fail, trace, tail: r.tail, killed: r.killed });
        } else rmSync(trace, { force: true });
      }
    }
    const pertS = (performance.now() - tq) / 1000;
    tot.pkgs++; tot.files += files.length; tot.tests += tests; tot.plainExec += files.length * plainRuns; tot.pertExec += execs; tot.pertS += pertS; tot.plainS += plainS;
    console.log(`${pad(`${p.pkg}@${p.version}`, 32)} ${padl(files.length, 5)} files, ${tests} tests, ${states.length - kept.length} set aside, plain ${plainS.toFixed(0)} s; ${execs} perturbed runs (seeds 1..${seed}), ${failed} failing`);
    results.push({ pkg: p.pkg, version: p.version, source: p.source, files: states.map((s) => ({ file: s.file, plain: s.plain.map((r) => [r.pass, r.fail, Math.round(r.ms)]), setAside: s.setAside })), perturbed: pert });
    writeFileSync(join(WORK, "results.json"), JSON.stringify({ results, failures, notRun }, null, 2));
  }
  if (installOnly) return;
  writeFileSync(join(WORK, "results.json"), JSON.stringify({ results, failures, notRun }, null, 2));
  console.log("");
  report([{ results: results as PkgResult[], failures, notRun }], (performance.now() - t0) / 1000);
  console.log(`\nresults: ${join(WORK, "results.json")} (reprint, or merge several runs: --report FILE,FILE)`);
}

interface PkgResult { pkg: string; version: string; runner?: string; files: { file: string; plain: [number, number, number][]; setAside: boolean }[]; perturbed: { file: string; seed: number; pass: number; fail: number; ms: number }[] }
interface RunFile { results: PkgResult[]; failures: Failure[]; notRun?: string[] }

/** The hunt's figures from one or more results.json: per package, totals, buckets by verdict. */
function report(runs: RunFile[], wallS?: number) {
  const results = runs.flatMap((r) => r.results), failures = runs.flatMap((r) => r.failures), notRun = runs.flatMap((r) => r.notRun ?? []);
  const header = `${pad("package", 32)} ${padl("files", 5)} ${padl("tests", 6)} ${padl("aside", 6)} ${padl("plain", 6)} ${padl("plain s", 7)} ${padl("pert", 6)} ${padl("pert s", 7)} ${padl("failed", 6)}`;
  console.log(header);
  const tot = { files: 0, tests: 0, aside: 0, plain: 0, plainS: 0, pert: 0, pertS: 0 };
  const setAside: string[] = [];
  for (const r of results) {
    const tests = r.files.reduce((a, f) => a + Math.max(...f.plain.map((x) => x[0] + x[1])), 0);
    const aside = r.files.filter((f) => f.setAside);
    for (const f of aside) setAside.push(`${r.pkg} ${f.file}: failed ${f.plain.filter((x) => x[1] > 0 || x[0] === 0).length} of ${f.plain.length} plain runs`);
    const plain = r.files.reduce((a, f) => a + f.plain.length, 0), plainS = r.files.reduce((a, f) => a + f.plain.reduce((b, x) => b + x[2], 0), 0) / 1000;
    const pertS = r.perturbed.reduce((a, x) => a + x.ms, 0) / 1000;
    const failed = failures.filter((f) => f.pkg === r.pkg).length;
    console.log(`${pad(`${r.pkg}@${r.version}`, 32)} ${padl(r.files.length, 5)} ${padl(tests, 6)} ${padl(aside.length, 6)} ${padl(plain, 6)} ${padl(plainS.toFixed(0), 7)} ${padl(r.perturbed.length, 6)} ${padl(pertS.toFixed(0), 7)} ${padl(failed, 6)}`);
    tot.files += r.files.length; tot.tests += tests; tot.aside += aside.length; tot.plain += plain; tot.plainS += plainS; tot.pert += r.perturbed.length; tot.pertS += pertS;
  }
  // buckets: one per (package, file, first failing test); the verdict is triage.ts's
  const buckets = new Map<string, Failure[]>();
  for (const f of failures) { const k = `${f.pkg} ${f.file} :: ${f.test}`; buckets.set(k, [...(buckets.get(k) ?? []), f]); }
  const byVerdict = new Map<string, number>();
  for (const k of buckets.keys()) { const v = VERDICTS[k]?.verdict ?? "untriaged"; byVerdict.set(v, (byVerdict.get(v) ?? 0) + 1); }
  console.log(`\ntotal: ${results.length} packages run (${notRun.length} not run), ${tot.files} test files, ${tot.tests} tests; ${tot.plain} plain file runs (${tot.plainS.toFixed(0)} s), ${tot.aside} files set aside; ${tot.pert} perturbed file runs (${tot.pertS.toFixed(0)} s); ${failures.length} failing perturbed runs in ${buckets.size} buckets${wallS ? `; wall ${wallS.toFixed(0)} s` : ""}`);
  console.log(`buckets by verdict: ${[...byVerdict].map(([v, n]) => `${v} ${n}`).join(", ") || "none"}`);
  if (notRun.length) { console.log("\nnot run:"); for (const m of notRun) console.log(`- ${m}`); }
  if (setAside.length) { console.log("\nset aside (fail under plain node):"); for (const m of setAside) console.log(`- ${m}`); }
  if (buckets.size) {
    console.log("\nbuckets (triage: bench/hunt/triage.ts, docs/found-bugs.md):");
    for (const [k, fs] of buckets) {
      const v = VERDICTS[k];
      console.log(`- [${v?.verdict ?? "untriaged"}] ${k}: ${fs.length} run(s), seeds ${fs.map((f) => f.seed).join(",")}${v ? ` — ${v.note}` : ""}\n    trace: ${fs[0]!.trace}`);
    }
  }
}

const reportFiles = opt("--report");
if (reportFiles) report(reportFiles.split(",").map((f) => JSON.parse(readFileSync(f, "utf8")) as RunFile));
else await main();
