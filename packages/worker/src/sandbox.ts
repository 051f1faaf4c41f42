// The sandbox of target processes. Targets are code the farm does not trust.
// Two levels on Linux, both util-linux's `unshare` (no setuid helper: an
// unprivileged user namespace is enough, root or not):
//
//   "net": own user and network namespace whose only interface is a fresh
//     loopback, so a target cannot reach the farm's Redis or PostgreSQL,
//     neither on other addresses (no route) nor on the host's 127.0.0.1 (its
//     loopback is not the host's). Another user namespace also keeps it out of
//     /proc/<pid>/environ of the worker. `ip link set lo up`, then an exec of
//     the real command, so the process the engine holds is the target itself.
//   "fs": "net" plus a mount and a PID namespace (internal/sandbox-init.pl):
//     every mount read-only, nosuid, nodev (only null, zero, full, random,
//     urandom, tty usable as devices); an empty private tmpfs on /tmp, the
//     worker's tmpdir and /dev/shm, with the job's own directory bound back
//     writable and the target's directories that lived there bound back
//     read-only; the worker's secrets (job key file, data directory, secret
//     files) covered by an empty tmpfs or /dev/null; a fresh /proc listing
//     only the namespace's processes. The engine holds a small forwarding
//     parent (signals in, the target's exit status or signal out).
//
// The worker probes once at start-up; "auto" uses "fs" where its probe
// passes, else "net" where that one passes, else none; "fs" and "net" refuse
// to start without their level; "none" never wraps. Each job's target
// processes also get their own working directory.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { FuzzFarmError, type TargetSandbox } from "@fuzzfarm/protocol";

/** A worker's sandbox setting (config `sandbox`, env FUZZFARM_SANDBOX). */
export type SandboxMode = "auto" | "fs" | "net" | "none";

/**
 * The command words put before a target's command line: own user + network namespace, loopback up, exec.
 * `ip` is looked up in the sbin directories too (some distributions keep it there, off a non-root user's PATH).
 */
export const NET_SANDBOX_PREFIX: readonly string[] = ["unshare", "--net", "--user", "--map-root-user", "/bin/sh", "-c", 'PATH="$PATH:/usr/sbin:/sbin" ip link set lo up && exec "$@"', "ff-sandbox"];

/** The fs sandbox's init script (perl), run by `unshare` as the process the engine holds. */
export const FS_SANDBOX_INIT = fileURLToPath(new URL("./internal/sandbox-init.pl", import.meta.url));
/**
 * The farm's own code (this package and, beside it in the same checkout or
 * node_modules tree, the engines' preloads, harnesses and runners): targets
 * load it, so the fs sandbox keeps it readable even when the checkout lives
 * under a private tmp directory (a CI clone in /tmp).
 */
const FARM_CODE_DIR = fileURLToPath(new URL(".", import.meta.url));

/** mount(2)'s syscall number, which the init script calls directly, by Node's process.arch (undefined: no fs sandbox). */
const SYS_MOUNT: Partial<Record<string, number>> = { x64: 165, arm64: 40, riscv64: 40, loong64: 40, ia32: 21, arm: 21, ppc64: 21, s390x: 21 };

/**
 * The command words of the fs sandbox before its per-job arguments (jobSandbox adds them): own user, network,
 * mount and PID namespace, then the init script. [] where this architecture's mount(2) number is unknown.
 */
export const FS_SANDBOX_PREFIX: readonly string[] =
  SYS_MOUNT[process.arch] === undefined ? [] : ["unshare", "--user", "--map-root-user", "--net", "--mount", "--pid", "perl", FS_SANDBOX_INIT, String(SYS_MOUNT[process.arch])];

/** Directories the fs sandbox replaces with an empty private tmpfs: /tmp, this process's tmpdir, /dev/shm. */
export function privateTmpDirs(): string[] {
  return [...new Set(["/tmp", realpathOr(tmpdir()), "/dev/shm"])];
}

const realpathOr = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

export interface SandboxProbeOptions {
  /** The net wrapper to probe (a custom one is used as the "net" level, and "fs" is not tried). Default NET_SANDBOX_PREFIX. */
  prefix?: readonly string[];
  /** Give up after this long, ms. Default 10000. */
  timeoutMs?: number;
}

// Run inside the wrapper: the interfaces node sees that are up (libuv lists only those).
const PROBE = "process.stdout.write(JSON.stringify(require('node:os').networkInterfaces()))";

/** Run `words` (a wrapper, then a command); resolves to its stdout, or to a one-line reason it failed. */
function runProbe(words: readonly string[], timeoutMs: number): Promise<{ out: string } | { failure: string }> {
  const [command, ...args] = words;
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    const child = spawn(command!, args, { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin" } });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ failure: `cannot run ${command}: ${(e as NodeJS.ErrnoException).code ?? e.message}` });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve({ out });
      const line = err.split("\n").find((l) => l.trim()) ?? "";
      resolve({ failure: `${command} ${signal ? `was killed (${signal})` : `exited with code ${code}`}${line ? `: ${line.trim().slice(0, 200)}` : ""}` });
    });
  });
}

/** null when the interface list a probe printed is loopback alone, else why not. */
function loopbackOnly(out: string): string | null {
  try {
    const ifs = JSON.parse(out) as Record<string, { address: string }[]>;
    const names = Object.keys(ifs);
    if (names.length !== 1 || !ifs[names[0]!]!.some((a) => a.address === "127.0.0.1")) return `the sandboxed process sees interfaces ${JSON.stringify(names)}, not loopback alone`;
    return null;
  } catch {
    return `the sandboxed process printed no interface list`;
  }
}

/**
 * Start one node process under the wrapper and check that its only interface
 * is loopback, up, with 127.0.0.1. Resolves to `null` when the wrapper works,
 * else to one line saying why not.
 */
export async function probeNetSandbox(opts: SandboxProbeOptions = {}): Promise<string | null> {
  if (process.platform !== "linux") return `network namespaces are Linux only (this is ${process.platform})`;
  const r = await runProbe([...(opts.prefix ?? NET_SANDBOX_PREFIX), process.execPath, "-e", PROBE], opts.timeoutMs ?? 10_000);
  return "failure" in r ? r.failure : loopbackOnly(r.out);
}

// Run inside the fs sandbox: what a target sees of the network, the processes, the filesystem and a hidden file.
const FS_PROBE = `const fs = require('node:fs'), os = require('node:os');
const code = (f) => { try { f(); return 'ok'; } catch (e) { return e.code; } };
process.stdout.write(JSON.stringify({
  ifs: os.networkInterfaces(), pid: process.pid, procs: fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)),
  root: code(() => fs.writeFileSync('/ff-probe', '')), cwd: code(() => fs.writeFileSync('w', '')),
  secret: code(() => { if (fs.readFileSync(process.argv[1], 'utf8')) throw Object.assign(new Error(), { code: 'READ' }); }),
}));`;

/**
 * Start one node process under the fs sandbox (a scratch job directory, a hidden file) and check what it sees:
 * loopback alone, only its namespace's processes, a read-only root, a writable cwd, an empty hidden file.
 * Resolves to `null` when it works, else to one line saying why not.
 */
export async function probeFsSandbox(opts: { timeoutMs?: number } = {}): Promise<string | null> {
  if (process.platform !== "linux") return `mount namespaces are Linux only (this is ${process.platform})`;
  if (!FS_SANDBOX_PREFIX.length) return `no mount(2) number known for ${process.arch}`;
  const dir = mkdtempSync(join(tmpdir(), "ff-sandbox-probe-"));
  try {
    // readable (its directory bound back), then hidden: the probe sees the cover, not the tmpfs
    const secret = join(dir, "secret");
    writeFileSync(secret, "probe secret", { mode: 0o600 });
    const sandbox = jobSandbox({ name: "fs", why: "", prefix: FS_SANDBOX_PREFIX }, join(dir, "job"), { hide: [secret], readable: [secret] });
    const r = await runProbe([...sandbox.prefix, process.execPath, "-e", FS_PROBE, secret], opts.timeoutMs ?? 10_000);
    if ("failure" in r) return r.failure;
    const seen = JSON.parse(r.out) as { ifs: unknown; pid: number; procs: string[]; root: string; cwd: string; secret: string };
    const net = loopbackOnly(JSON.stringify(seen.ifs));
    if (net) return net;
    if (seen.procs.length > 3 || seen.pid > 3) return `the sandboxed process (pid ${seen.pid}) sees processes ${seen.procs.slice(0, 5).join(", ")}..., not its own namespace's`;
    if (seen.root !== "EROFS") return `the sandboxed process can write to / (${seen.root})`;
    if (seen.cwd !== "ok") return `the sandboxed process cannot write to its working directory (${seen.cwd})`;
    if (seen.secret === "READ") return `the sandboxed process reads a hidden file`;
    return null;
  } catch (e) {
    return `the fs sandbox probe failed: ${(e as Error).message}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The sandbox a worker settled on at start-up. */
export interface ResolvedSandbox {
  name: "fs" | "net" | "none";
  /** Why "none" (or "net") under "auto" (the probes' failures), or that it was configured. */
  why: string;
  /** The wrapper before per-job arguments (with "fs", jobSandbox adds the job's mounts). */
  prefix: readonly string[];
}

/**
 * Settle a worker's sandbox once: "none" as configured; "fs" when its probe
 * passes (mode "fs" or "auto"), "net" when the net probe passes (mode "net",
 * or "auto" without "fs"); with mode "fs" or "net" a failing probe throws
 * FF_ERR_CONFIG; else "none" with the probes' reasons.
 */
export async function resolveSandbox(mode: SandboxMode, opts: SandboxProbeOptions = {}): Promise<ResolvedSandbox> {
  if (mode === "none") return { name: "none", why: "configured", prefix: [] };
  let fsFailure: string | null = null;
  if ((mode === "auto" && !opts.prefix) || mode === "fs") {
    fsFailure = await probeFsSandbox(opts);
    if (!fsFailure) return { name: "fs", why: "probe passed", prefix: FS_SANDBOX_PREFIX };
    if (mode === "fs") throw new FuzzFarmError("FF_ERR_CONFIG", `sandbox "fs" is not available here: ${fsFailure}`);
  }
  const prefix = opts.prefix ?? NET_SANDBOX_PREFIX;
  const failure = await probeNetSandbox({ ...opts, prefix });
  if (!failure) return { name: "net", why: fsFailure ? `no fs sandbox: ${fsFailure}` : "probe passed", prefix };
  if (mode === "net") throw new FuzzFarmError("FF_ERR_CONFIG", `sandbox "net" is not available here: ${failure}`);
  return { name: "none", why: fsFailure && fsFailure !== failure ? `${failure}; no fs sandbox: ${fsFailure}` : failure, prefix: [] };
}

/** What the fs sandbox of one job keeps visible and hides (ignored by the other levels). */
export interface JobSandboxPaths {
  /**
   * Paths target processes must read (target files and roots, engine binaries). Only those under a private tmp
   * directory need naming (everything else stays visible, read-only): the top entry under it is bound back
   * read-only. Default [].
   */
  readable?: readonly string[];
  /** Paths target processes must not read (the job key file, the worker's data directory, secret files). Default []. */
  hide?: readonly string[];
}

const isUnder = (path: string, dir: string) => {
  const r = relative(dir, path);
  return r !== "" && !r.startsWith("..") && !isAbsolute(r);
};

/** For each readable path under a private tmp dir: the entry right below that dir (what the fs sandbox binds back). */
function readableRoots(paths: readonly string[], tmps: string[], workDir: string): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    if (!isAbsolute(p) || !existsSync(p)) continue;
    const real = realpathOr(p);
    const tmp = tmps.find((t) => isUnder(real, t));
    if (!tmp || isUnder(real, workDir) || real === workDir) continue;
    out.add(join(tmp, relative(tmp, real).split(sep)[0]!));
  }
  return [...out];
}

/**
 * The sandbox of one job's target processes: the worker's wrapper (with "fs", plus the job's mounts: its
 * workDir writable, `paths.readable` under tmp bound back, `paths.hide` covered), cwd a fresh directory
 * `target-cwd` of the job's workDir.
 */
export function jobSandbox(resolved: ResolvedSandbox, workDir: string, paths: JobSandboxPaths = {}): TargetSandbox {
  const cwd = join(workDir, "target-cwd");
  mkdirSync(cwd, { recursive: true });
  if (resolved.name !== "fs") return { name: resolved.name, prefix: resolved.prefix, cwd };
  const real = realpathOr(workDir);
  const tmps = privateTmpDirs();
  const args = [
    ...tmps.flatMap((t) => ["-t", t]),
    "-w", real,
    ...readableRoots([FARM_CODE_DIR, ...(paths.readable ?? [])], tmps, real).flatMap((r) => ["-r", r]),
    ...(paths.hide ?? []).filter((h) => isAbsolute(h) && existsSync(h)).flatMap((h) => ["-h", realpathOr(h)]),
    "-c", join(real, "target-cwd"),
    "--",
  ];
  return { name: "fs", prefix: [...resolved.prefix, ...args], cwd, dir: real };
}
