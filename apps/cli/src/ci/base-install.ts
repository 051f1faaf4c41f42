// The base checkout's dependencies, installed the way the project installs
// them. `git worktree` gives the base its files but no node_modules, so a
// target that requires any package would not load there. The head's install
// is the workflow's own step (`npm ci` before `fuzzfarm ci`); when the base's
// lockfile is the head's, the head's node_modules is reused (a symlink, no
// second install); else the base is installed from its lockfile with the
// package manager that lockfile belongs to. Lifecycle scripts are not run
// (`--ignore-scripts`: the base's install must not run code with the
// network and files of the CI job), and the environment is the allow-listed
// one the targets get. A failure is a reason, not an error: the head's
// verdict is still given and the base side says why.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/** Lockfiles, in the order they are looked for, and the command that installs exactly what each pins. */
const LOCKFILES: readonly { file: string; command: string[] }[] = [
  { file: "package-lock.json", command: ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"] },
  { file: "npm-shrinkwrap.json", command: ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"] },
  { file: "pnpm-lock.yaml", command: ["pnpm", "install", "--frozen-lockfile", "--ignore-scripts"] },
  { file: "yarn.lock", command: ["yarn", "install", "--frozen-lockfile", "--ignore-scripts"] },
];

export type BaseInstall = { ok: true; how: string } | { ok: false; why: string };

export interface BaseInstallOptions {
  /** The head checkout's root (its node_modules is reused when the lockfiles are equal). */
  headRoot: string;
  /** The base checkout's root. */
  baseRoot: string;
  /** Environment of the install (the allow-listed one). */
  env: Record<string, string>;
  /** Longest install, ms. Default 300 000. */
  timeoutMs?: number;
}

function run(command: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    let err = "";
    const p = spawn(command[0]!, command.slice(1), { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    const t = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
    p.stderr.on("data", (d) => (err = (err + d).slice(-4000)));
    p.on("error", (e) => {
      clearTimeout(t);
      resolve(`cannot run ${command[0]}: ${(e as NodeJS.ErrnoException).code ?? e.message}`);
    });
    p.on("close", (code, signal) => {
      clearTimeout(t);
      if (code === 0) return resolve(null);
      const line = err.split("\n").map((l) => l.trim()).filter((l) => l && !/^npm (warn|notice)/i.test(l)).find((l) => /err/i.test(l)) ?? err.trim().split("\n").pop() ?? "";
      resolve(`${command.join(" ")} ${signal ? `was killed (${signal})` : `exited with code ${code}`}${line ? `: ${line.slice(0, 200)}` : ""}`);
    });
  });
}

/** Give the base checkout its dependencies; says how, or why not. */
export async function installBase(o: BaseInstallOptions): Promise<BaseInstall> {
  if (!existsSync(join(o.baseRoot, "package.json"))) return { ok: true, how: "no package.json: nothing to install" };
  if (existsSync(join(o.baseRoot, "node_modules"))) return { ok: true, how: "node_modules present" };
  const lock = LOCKFILES.find((l) => existsSync(join(o.baseRoot, l.file)));
  if (!lock) {
    const pkg = JSON.parse(readFileSync(join(o.baseRoot, "package.json"), "utf8")) as { dependencies?: object; devDependencies?: object };
    if (!Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).length) return { ok: true, how: "no dependencies" };
    return { ok: false, why: "the base has dependencies but no lockfile (package-lock.json, pnpm-lock.yaml or yarn.lock) to install them from" };
  }
  const headLock = join(o.headRoot, lock.file);
  const headModules = join(o.headRoot, "node_modules");
  if (existsSync(headModules) && existsSync(headLock) && readFileSync(headLock).equals(readFileSync(join(o.baseRoot, lock.file)))) {
    symlinkSync(headModules, join(o.baseRoot, "node_modules"), "dir");
    return { ok: true, how: `${lock.file} equals the head's: its node_modules reused` };
  }
  const failure = await run(lock.command, o.baseRoot, o.env, o.timeoutMs ?? 300_000);
  return failure ? { ok: false, why: `installing the base's dependencies failed: ${failure}` } : { ok: true, how: `installed with ${lock.command.slice(0, 2).join(" ")} from ${lock.file}` };
}
