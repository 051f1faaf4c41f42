// Running a package's own test files as programs, under `node` or `fuzzfarm
// node`, and counting their results from the TAP they print. Shared by
// bench/real-suites (twelve small suites) and bench/hunt (the race hunt), so
// both count a pass and a failure the same way.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The drop-in: `node BIN [options] file` behaves like `node file`. */
export const FUZZFARM_NODE = fileURLToPath(new URL("../../packages/engine-node/bin/fuzzfarm-node.mjs", import.meta.url));

/**
 * How a file is run and read: node:test, tap and tape files are programs that
 * print TAP themselves; mocha files run through mocha's own bin with its TAP
 * reporter (in-process: mocha forks only for node flags).
 */
export type Runner = "node:test" | "tap" | "tape" | "mocha";

export interface Counts { pass: number; fail: number; code: number | null; ms: number; failed: string[]; out: string; killed: boolean }

/** `npm install` of `deps` into `dir` (skipped when its manifest is unchanged); returns false with npm's words on failure. */
export function npmInstall(dir: string, name: string, deps: Record<string, string>): { ok: true } | { ok: false; why: string } {
  const marker = join(dir, "package.json");
  const manifest = JSON.stringify({ name, private: true, dependencies: deps }, null, 2);
  if (existsSync(join(dir, "node_modules")) && existsSync(marker) && readFileSync(marker, "utf8") === manifest) return { ok: true };
  mkdirSync(dir, { recursive: true });
  writeFileSync(marker, manifest);
  // --legacy-peer-deps: old devDependencies (tape 4, mocha 6) carry peer ranges npm 10 refuses to combine
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--legacy-peer-deps", "--loglevel=error"], { cwd: dir, encoding: "utf8" });
  if (r.status !== 0) return { ok: false, why: (r.stderr || r.stdout).split("\n").filter(Boolean).slice(-3).join(" / ") };
  return { ok: true };
}

/** Test files under `roots` of `pkgDir` whose path relative to it matches `files` and no `exclude`. */
export function testFiles(pkgDir: string, files: RegExp, exclude: { re: RegExp }[] = [], roots = ["test"]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (f === "node_modules" || f === "fixtures") continue;
      if (statSync(p).isDirectory()) walk(p);
      else {
        const rel = relative(pkgDir, p);
        if (files.test(rel) && !exclude.some((x) => x.re.test(rel))) out.push(rel);
      }
    }
  };
  for (const r of roots) {
    const p = join(pkgDir, r);
    if (!existsSync(p)) continue;
    if (statSync(p).isDirectory()) walk(p);
    else if (files.test(r)) out.push(r);
  }
  return [...new Set(out)].sort();
}

/** Pass/fail counts from a file's TAP output (a `# pass`/`# fail` summary, else the top-level points). */
export function count(runner: Runner, out: string, code: number | null): Pick<Counts, "pass" | "fail" | "code" | "failed"> {
  const failed = [...out.matchAll(/^\s*not ok \d+(?: -)? (.*)$/gm)].map((m) => m[1]!.trim());
  if (runner === "node:test" || runner === "mocha") {
    const n = (k: string) => Number(out.match(new RegExp(`^# ${k} (\\d+)$`, "m"))?.[1] ?? NaN);
    const pass = n("pass"), fail = n("fail") + (n("cancelled") || 0);
    // a mocha or node:test run that exits non-zero after its summary failed somewhere the summary does not count (an uncaught error after the last test)
    if (Number.isFinite(pass) && Number.isFinite(fail)) return { pass, fail: fail || (code !== 0 ? 1 : 0), code, failed: fail || code === 0 ? failed : [...failed, `(exit ${code} after a clean summary)`] };
  } else {
    const pass = (out.match(/^ok \d+/gm) ?? []).length, fail = (out.match(/^not ok \d+/gm) ?? []).length;
    if (pass + fail > 0) return { pass, fail: fail || (code !== 0 ? 1 : 0), code, failed: fail || code === 0 ? failed : [...failed, `(exit ${code} after its points)`] };
  }
  // no summary: the file crashed or was killed before its runner reported
  return { pass: 0, fail: 1, code, failed: [`(no test report, exit ${code})`] };
}

/** The argv (after `node` or the drop-in) that runs `file` for `runner`. */
export function fileArgs(runner: Runner, pkgDir: string, file: string, runnerArgs: string[] = []): string[] {
  if (runner !== "mocha") return [...runnerArgs, file];
  // mocha 8+ names its bin bin/mocha.js, older ones bin/mocha: its package.json says which
  const req = createRequire(join(pkgDir, "noop.js"));
  const manifest = req.resolve("mocha/package.json");
  const bin = (req(manifest) as { bin: Record<string, string> }).bin;
  const mocha = join(manifest, "..", bin["mocha"] ?? bin["_mocha"]!);
  return [mocha, "--reporter", "tap", "--no-config", "--no-package", ...runnerArgs, file];
}

/**
 * Runs `node ...cmd` in `cwd` in its own process group, killed whole after
 * `killMs` (a mocha or tap child left behind would hold a port the next file needs).
 */
export function runFile(cmd: string[], cwd: string, runner: Runner, killMs: number, extraEnv: Record<string, string> = {}): Promise<Counts> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  const t0 = performance.now();
  return new Promise((resolve) => {
    const c = spawn(process.execPath, cmd, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    let killed = false;
    c.stdout.on("data", (d) => { if (out.length < 4 << 20) out += d; });
    c.stderr.on("data", (d) => { if (out.length < 4 << 20) out += d; });
    const kill = setTimeout(() => { killed = true; try { process.kill(-c.pid!, "SIGKILL"); } catch { /* already gone */ } }, killMs);
    c.on("close", (code) => {
      clearTimeout(kill);
      try { process.kill(-c.pid!, "SIGKILL"); } catch { /* the group is gone: nothing left behind */ }
      resolve({ ...count(runner, out, code), ms: performance.now() - t0, out, killed });
    });
  });
}

export async function mapLimit<T, R>(items: T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const res: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) { const i = next++; res[i] = await fn(items[i]!); }
  }));
  return res;
}

export const pad = (s: string | number, n: number) => String(s).padEnd(n);
export const padl = (s: string | number, n: number) => String(s).padStart(n);
