// The "fs" sandbox's command line: internal/sandbox-run.pl (outer) around
// bubblewrap around sandbox-run.pl (inner) around the target. bwrap makes
// the namespaces, the uid, the capability drop, no_new_privs and the seccomp
// filter (internal/seccomp.ts); internal/view.ts says what it binds.
import { accessSync, constants, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { seccompCovers, seccompProgram } from "./seccomp";
import { baseView, jobView, realpathOr, type JobView } from "./view";

const RUN_SCRIPT = fileURLToPath(new URL("./sandbox-run.pl", import.meta.url));
/** The target's ids inside its user namespace: nobody, not root (mapped to the worker's own uid outside). */
const SANDBOX_ID = "65534";

/** An executable named `name` on PATH or in the usual system directories, else null. */
export function findExecutable(name: string, path: string = process.env.PATH ?? ""): string | null {
  for (const d of [...path.split(":").filter(Boolean), "/usr/bin", "/bin", "/usr/sbin", "/sbin"]) {
    const p = join(d, name);
    try {
      accessSync(p, constants.X_OK);
      return realpathOr(p);
    } catch {
      continue;
    }
  }
  return null;
}

/** The directory of the farm's installed tree that holds the code its targets load (the one with node_modules/tsx). */
export function farmRoot(codeDir: string): string {
  for (let d = codeDir; dirname(d) !== d; d = dirname(d)) if (existsSync(join(d, "node_modules", "tsx"))) return d;
  return dirname(dirname(codeDir));
}

/**
 * The job-independent words of the fs sandbox (outer script, bwrap with namespaces, ids, capabilities, seccomp,
 * the system part of the view), or one line saying why it cannot run here (what to install). `bwrapPath`: default
 * the one on PATH; null: none.
 */
export function fsSandboxBase(privateTmps: readonly string[], bwrapPath?: string | null): string[] | string {
  if (!seccompCovers()) return `no seccomp filter for ${process.arch} (x64 and arm64 only)`;
  const bwrap = bwrapPath === undefined ? findExecutable("bwrap") : bwrapPath;
  if (!bwrap) return "bwrap is not installed (install bubblewrap: apt-get install bubblewrap)";
  const perl = findExecutable("perl");
  if (!perl) return "perl is not installed (apt-get install perl-base)";
  return [
    perl, RUN_SCRIPT, "outer", seccompProgram().toString("hex"),
    bwrap,
    "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
    "--uid", SANDBOX_ID, "--gid", SANDBOX_ID, "--cap-drop", "ALL",
    "--die-with-parent", "--new-session", "--seccomp", "@SECCOMP@",
    ...baseView(privateTmps),
  ];
}

/** The per-job words after fsSandboxBase: the job's view, its cwd, a read-only root, then the inner script. */
export function fsJobWords(view: JobView, cwd: string): string[] {
  const perl = findExecutable("perl") ?? "/usr/bin/perl";
  return [...jobView(view), "--chdir", cwd, "--remount-ro", "/", "--", perl, RUN_SCRIPT, "inner", "@STATUS@", "--"];
}
