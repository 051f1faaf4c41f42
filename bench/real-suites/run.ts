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
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { SUITES, type Suite } from "./suites";

const BIN = fileURLToPath(new URL("../../packages/engine-node/bin/fuzzfarm-node.mjs", import.meta.url));
const WORK = join(tmpdir(), "fuzzfarm-real-suites");
const KILL_MS = 180_000;

const argv = process.argv.slice(2);
const opt = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const only = opt("--only")?.split(",");
const seeds = Number(opt("--seeds") ?? 3);
const perturb = !argv.includes("--no-perturb");
const jobs = Math.max(1, Number(opt("--jobs") ?? 1));

interface Counts { pass: number; fail: number; code: number | null; ms: number; failed: string[]; out: string }

const slug = (s: Suite) => s.pkg.replace(/[@/]/g, "_");

function install(s: Suite): string {
  const dir = join(WORK, slug(s));
  const pkgDir = join(dir, "node_modules", s.pkg);
  const want = { [s.pkg]: s.version, ...s.extra };
  const marker = join(dir, "package.json");
  const manifest = JSON.stringify({ name: `real-suite-${slug(s)}`, private: true, dependencies: want }, null, 2);
  if (existsSync(pkgDir) && existsSync(marker) && readFileSync(marker, "utf8") === manifest) return pkgDir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(marker, manifest);
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], { cwd: dir, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`npm install ${s.pkg}@${s.version} failed: ${r.stderr}`);
  return pkgDir;
}

function testFiles(s: Suite, pkgDir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (f === "node_modules" || f === "fixtures") continue;
      if (statSync(p).isDirectory()) walk(p);
      else {
        const rel = relative(pkgDir, p);
        if (s.files.test(rel) && !(s.exclude ?? []).some((x) => x.re.test(rel))) out.push(rel);
      }
    }
  };
  if (existsSync(join(pkgDir, "test"))) walk(join(pkgDir, "test"));
  return out.sort();
}

/** Pass/fail counts from the file's TAP output (node:test summary, or tap's top-level points). */
function count(runner: Suite["runner"], out: string, code: number | null): Omit<Counts, "ms" | "out"> {
  const failed = [...out.matchAll(/^\s*not ok \d+ - (.*)$/gm)].map((m) => m[1]!.trim());
  if (runner === "node:test") {
    const n = (k: string) => Number(out.match(new RegExp(`^# ${k} (\\d+)$`, "m"))?.[1] ?? NaN);
    const pass = n("pass"), fail = n("fail") + (n("cancelled") || 0);
    if (Number.isFinite(pass) && Number.isFinite(fail)) return { pass, fail, code, failed };
  } else {
    const pass = (out.match(/^ok \d+/gm) ?? []).length, fail = (out.match(/^not ok \d+/gm) ?? []).length;
    if (pass + fail > 0) return { pass, fail, code, failed };
  }
  // no summary: the file crashed or was killed before its runner reported
  return { pass: 0, fail: 1, code, failed: [`(no test report, exit ${code})`] };
}

function runFile(cmd: string[], cwd: string, runner: Suite["runner"]): Promise<Counts> {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  const t0 = performance.now();
  return new Promise((resolve) => {
    const c = spawn(process.execPath, cmd, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    c.stdout.on("data", (d) => { if (out.length < 4 << 20) out += d; });
    c.stderr.on("data", (d) => { if (out.length < 4 << 20) out += d; });
    const kill = setTimeout(() => c.kill("SIGKILL"), KILL_MS);
    c.on("close", (code) => {
      clearTimeout(kill);
      resolve({ ...count(runner, out, code), ms: performance.now() - t0, out });
    });
  });
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const res: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) { const i = next++; res[i] = await fn(items[i]!); }
  }));
  return res;
}

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const padl = (s: string | number, n: number) => String(s).padStart(n);

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
