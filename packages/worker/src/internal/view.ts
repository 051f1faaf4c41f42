// The filesystem a target of the "fs" sandbox sees, as bwrap arguments. It is
// built from nothing (bwrap's root is an empty tmpfs, made read-only last):
// what is not bound here does not exist in the target's mount namespace, so
// no unmount can reveal it (the earlier sandbox covered secrets with mounts a
// root-capable target could remove). Bound in:
//   - the system directories read-only (/usr and the /bin, /lib... links or
//     directories), and of /etc only what programs read to start and resolve
//     names (no shadow, no ssh host keys, no credentials of services);
//   - read-only: the directory of each runtime binary outside them (node,
//     Deno, Bun, command engines), the farm's own code tree and each target's
//     project directory, each without the paths to hide (the data directory
//     with the job key and the Redis password, secret files): a tree that
//     holds one is bound entry by entry around it;
//   - a fresh /proc (the sandbox's PID namespace only), a minimal /dev, an
//     empty private tmpfs on /tmp, the worker's tmpdir and /dev/shm;
//   - the job's own directory read-write.
// Not bound: /run and /var/run (the PostgreSQL and other Unix sockets), /var,
// /home, /root, /sys, /mnt, other jobs' directories.
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";

/** Top-level system directories bound read-only (a symlink, as on merged-/usr systems, is recreated as one). */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** What of /etc a runtime reads: the dynamic loader's cache, users and groups, name service, TLS roots, time zone, alternatives. */
const ETC_ENTRIES = [
  "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "passwd", "group", "nsswitch.conf", "hosts", "host.conf",
  "resolv.conf", "localtime", "timezone", "ssl", "ca-certificates", "ca-certificates.conf", "os-release", "mime.types",
];

export const realpathOr = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

const lstatOr = (p: string) => {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
};

export const isUnder = (path: string, dir: string) => {
  const r = relative(dir, path);
  return r === "" || (!r.startsWith("..") && !isAbsolute(r));
};

/** The same bwrap arguments for every job of a worker: system directories, /etc, /proc, /dev, private tmp dirs. */
export function baseView(privateTmps: readonly string[]): string[] {
  const args: string[] = [];
  for (const d of SYSTEM_DIRS) {
    const st = lstatOr(d);
    if (st?.isSymbolicLink()) args.push("--symlink", readlinkSync(d), d);
    else if (st?.isDirectory()) args.push("--ro-bind", d, d);
  }
  for (const e of ETC_ENTRIES) args.push("--ro-bind-try", join("/etc", e), join("/etc", e));
  args.push("--proc", "/proc", "--dev", "/dev");
  for (const t of privateTmps) args.push("--tmpfs", t);
  return args;
}

/** bwrap arguments binding `dir` read-only except the `hidden` paths under it (and their parents' other entries bound one by one). */
function bindAround(dir: string, hidden: readonly string[], out: string[]): void {
  if (hidden.some((h) => h === dir)) return;
  if (!hidden.some((h) => isUnder(h, dir))) {
    out.push("--ro-bind", dir, dir);
    return;
  }
  // a directory holding something hidden: recreate it and bind its entries but the hidden ones
  out.push("--dir", dir);
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatOr(p);
    if (!st) continue;
    if (st.isSymbolicLink()) out.push("--symlink", readlinkSync(p), p);
    else if (st.isDirectory()) bindAround(p, hidden, out);
    else if (!hidden.includes(p)) out.push("--ro-bind", p, p);
  }
}

export interface JobView {
  /** Directories (or files) bound read-only, each without what lies under `hidden`. */
  readable: readonly string[];
  /** Paths that must not exist in the view (resolved through symlinks here). */
  hidden: readonly string[];
  /** The private tmp directories (an empty tmpfs each): never bound from the host, also when under a readable tree. */
  privateTmps: readonly string[];
  /** The job's directory, bound read-write. */
  workDir: string;
}

/** The per-job bwrap arguments: readable trees around the hidden paths, then the job's directory. */
export function jobView(v: JobView): string[] {
  const hidden = [...new Set([...v.hidden.filter((h) => isAbsolute(h)).map(realpathOr), ...v.privateTmps, "/proc", "/dev", "/sys", "/run", "/var/run"])];
  const visible = ["/usr", "/etc", ...v.privateTmps];
  const roots: string[] = [];
  for (const p of v.readable) {
    if (!isAbsolute(p) || !existsSync(p)) continue;
    const real = realpathOr(p);
    if (real === "/" || visible.some((d) => isUnder(real, d) && !v.privateTmps.includes(d))) continue;
    if (hidden.some((h) => isUnder(real, h) && !v.privateTmps.includes(h))) continue;
    roots.push(real);
  }
  // outermost trees only, in a stable order (a tree inside another is bound with it)
  const outer = [...new Set(roots)].sort().filter((r, i, all) => !all.some((o, j) => j !== i && o !== r && isUnder(r, o)));
  const out: string[] = [];
  for (const r of outer) bindAround(r, hidden.filter((h) => !v.privateTmps.includes(h) || isUnder(h, r)), out);
  const work = realpathOr(v.workDir);
  out.push("--bind", work, work);
  return out;
}

/** The project directory of a target file (or directory): the nearest ancestor holding a package.json, else its own directory. */
export function projectDir(path: string): string {
  const real = realpathOr(path);
  let start: string;
  try {
    start = statSync(real).isDirectory() ? real : dirname(real);
  } catch {
    start = dirname(real);
  }
  for (let d = start; ; d = dirname(d)) {
    if (existsSync(join(d, "package.json"))) return d;
    if (dirname(d) === d) return start;
  }
}
