// Start-up time of the `fuzzfarm` command against plain `node`, measured in
// one run (rounds interleave every variant, medians reported), for:
//   dev        the checkout's launcher (apps/cli/bin/fuzzfarm.mjs: TypeScript through tsx)
//   built      the checkout's build (apps/cli/dist/fuzzfarm.cjs; built first when missing or with --build);
//              "node --timeout" needs a parent process (the launcher's kill of a blocked loop): the spawned path
//   installed  the packed tarball installed in a project (--installed DIR, or --pack to pack and install one)
// Targets (issue 12): `fuzzfarm --help` <= 0.3 s; `fuzzfarm node empty.js` <= 1.5x `node empty.js`.
//   node --import tsx bench/cli-start.ts [--runs 15] [--build] [--installed DIR | --pack]
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const value = (name: string) => (argv.indexOf(name) >= 0 ? argv[argv.indexOf(name) + 1] : undefined);
const runs = Number(value("--runs") ?? 15);

const work = mkdtempSync(join(tmpdir(), "ff-cli-start-"));
const empty = join(work, "empty.js");
writeFileSync(empty, "");

function sh(cmd: string, args: string[], cwd = root): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

const built = join(root, "apps", "cli", "dist", "fuzzfarm.cjs");
if (flag("--build") || !existsSync(built)) sh(process.execPath, [join(root, "scripts", "build.mjs")]);

let installedBin: string | undefined = value("--installed") ? join(value("--installed")!, "node_modules", ".bin", "fuzzfarm") : undefined;
if (flag("--pack")) {
  const tarball = sh(process.execPath, [join(root, "scripts", "pack.mjs"), "--out", work]).trim().split("\n").pop()!;
  const proj = join(work, "project");
  sh("mkdir", ["-p", proj]);
  writeFileSync(join(proj, "package.json"), JSON.stringify({ name: "bench-project", private: true }));
  sh("npm", ["i", "-D", "--no-audit", "--no-fund", "--prefer-offline", "--omit=optional", tarball], proj);
  installedBin = join(proj, "node_modules", ".bin", "fuzzfarm");
}

interface Variant {
  name: string;
  cmd: string;
  args: string[];
}
const variants: Variant[] = [
  { name: "node empty.js", cmd: process.execPath, args: [empty] },
  { name: "dev: fuzzfarm --help", cmd: process.execPath, args: [join(root, "apps", "cli", "bin", "fuzzfarm.mjs"), "--help"] },
  { name: "dev: fuzzfarm node empty.js", cmd: process.execPath, args: [join(root, "apps", "cli", "bin", "fuzzfarm.mjs"), "node", empty] },
  { name: "built: fuzzfarm --help", cmd: process.execPath, args: [built, "--help"] },
  { name: "built: fuzzfarm node empty.js", cmd: process.execPath, args: [built, "node", empty] },
  { name: "built: fuzzfarm node --timeout", cmd: process.execPath, args: [built, "node", "--timeout", "60000", empty] },
];
if (installedBin) {
  variants.push({ name: "installed: fuzzfarm --help", cmd: installedBin, args: ["--help"] });
  variants.push({ name: "installed: fuzzfarm node empty.js", cmd: installedBin, args: ["node", empty] });
}

const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
for (const v of variants) spawnSync(v.cmd, v.args, { cwd: work, stdio: "ignore" }); // warm the file cache
for (let i = 0; i < runs; i++) {
  for (const v of variants) {
    const t0 = performance.now();
    const r = spawnSync(v.cmd, v.args, { cwd: work, stdio: "ignore" });
    const dt = (performance.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`${v.name} exited ${r.status}`);
    times.get(v.name)!.push(dt);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(times.get("node empty.js")!);
console.log(`cli start-up, median of ${runs} interleaved runs (load average ${(await import("node:os")).loadavg()[0]!.toFixed(1)})`);
for (const v of variants) {
  const m = median(times.get(v.name)!);
  let verdict = "";
  if (v.name.endsWith("--help")) verdict = m <= 0.3 ? "ok (<= 0.3 s)" : "over 0.3 s";
  else if (v.name.endsWith("fuzzfarm node empty.js")) verdict = m / base <= 1.5 ? "ok (<= 1.5x)" : "over 1.5x";
  console.log(`${v.name.padEnd(36)} ${m.toFixed(3)} s  ${(m / base).toFixed(2)}x node  ${verdict}`);
}
rmSync(work, { recursive: true, force: true });
