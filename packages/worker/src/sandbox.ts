// The sandbox of target processes. Targets are code the farm does not trust.
// Two levels on Linux, neither with a setuid helper (an unprivileged user
// namespace is enough, root or not):
//
//   "net" (util-linux's `unshare`): own user and network namespace whose only interface is a fresh
//     loopback, so a target cannot reach the farm's Redis or PostgreSQL,
//     neither on other addresses (no route) nor on the host's 127.0.0.1 (its
//     loopback is not the host's). Another user namespace also keeps it out of
//     /proc/<pid>/environ of the worker. `ip link set lo up`, then an exec of
//     the real command, so the process the engine holds is the target itself.
//   "fs": bubblewrap (`bwrap`, Debian's package bubblewrap; no setuid: an
//     unprivileged user namespace is enough, root or not): own user, PID,
//     network, IPC, UTS and cgroup namespace; the target runs as uid/gid
//     65534 with no capabilities, no_new_privs and a seccomp filter
//     (internal/seccomp.ts: no mount, umount, pivot_root, ptrace, keyrings,
//     bpf, perf, new namespaces); a filesystem built from nothing
//     (internal/view.ts: system directories and the farm's and the target's
//     trees read-only without the worker's secrets, a fresh /proc, minimal
//     /dev, private /tmp, its job's directory writable; no /run, no host
//     Unix socket). internal/sandbox-run.pl hands bwrap the filter and ends
//     the way the target ended (exit code, or killed by the same signal).
//
// The worker probes once at start-up; "auto" uses "fs" where its probe
// passes, else "net" where that one passes, else none; "fs" and "net" refuse
// to start without their level; "none" never wraps. Each job's target
// processes also get their own working directory.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FuzzFarmError, type TargetSandbox } from "@fuzzfarm/protocol";
import { farmRoot, fsJobWords, fsSandboxBase } from "./internal/bwrap";
import { projectDir, realpathOr } from "./internal/view";

/** A worker's sandbox setting (config `sandbox`, env FUZZFARM_SANDBOX). */
export type SandboxMode = "auto" | "fs" | "net" | "none";

/**
 * The command words put before a target's command line: own user + network namespace, loopback up, exec.
 * `ip` is looked up in the sbin directories too (some distributions keep it there, off a non-root user's PATH).
 */
export const NET_SANDBOX_PREFIX: readonly string[] = ["unshare", "--net", "--user", "--map-root-user", "/bin/sh", "-c", 'PATH="$PATH:/usr/sbin:/sbin" ip link set lo up && exec "$@"', "ff-sandbox"];

/** The farm's own code (this package and, beside it in the same tree, the engines' preloads, harnesses, runners, tsx). */
const FARM_CODE_DIR = fileURLToPath(new URL(".", import.meta.url));

/** Directories the fs sandbox replaces with an empty private tmpfs: /tmp, this process's tmpdir, /dev/shm. */
export function privateTmpDirs(): string[] {
  return [...new Set(["/tmp", realpathOr(tmpdir()), "/dev/shm"])];
}

export interface SandboxProbeOptions {
  /** The net wrapper to probe (a custom one is used as the "net" level, and "fs" is not tried). Default NET_SANDBOX_PREFIX. */
  prefix?: readonly string[];
  /** Give up after this long, ms. Default 10000. */
  timeoutMs?: number;
  /** bwrap for the "fs" level: a path, or null for none (as where bubblewrap is not installed). Default: found on PATH. */
  bwrap?: string | null;
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

// Run inside the fs sandbox: what a target sees of the network, the processes, the filesystem, a hidden file, itself.
const FS_PROBE = `const fs = require('node:fs'), os = require('node:os');
const code = (f) => { try { f(); return 'ok'; } catch (e) { return e.code; } };
const status = fs.readFileSync('/proc/self/status', 'utf8');
const field = (n) => (new RegExp('^' + n + ':\\\\s*(\\\\S+)', 'm').exec(status) || [])[1];
process.stdout.write(JSON.stringify({
  ifs: os.networkInterfaces(), pid: process.pid, procs: fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n)),
  root: code(() => fs.writeFileSync('/ff-probe', '')), cwd: code(() => fs.writeFileSync('w', '')),
  secret: code(() => fs.readFileSync(process.argv[1])), run: code(() => fs.readdirSync('/run')),
  uid: process.getuid(), capEff: field('CapEff'), noNewPrivs: field('NoNewPrivs'), seccomp: field('Seccomp'),
}));`;

/**
 * Start one node process under the fs sandbox (a scratch job directory beside a file to hide) and check what it
 * sees: loopback alone, only its namespace's processes, a read-only root, a writable cwd, no hidden file, no /run,
 * a non-zero uid without capabilities under no_new_privs and seccomp. Resolves to `null` when it works, else to one
 * line saying why not (first: what to install when bwrap or perl is missing).
 */
export async function probeFsSandbox(opts: Pick<SandboxProbeOptions, "timeoutMs" | "bwrap"> = {}): Promise<string | null> {
  if (process.platform !== "linux") return `mount namespaces are Linux only (this is ${process.platform})`;
  const base = fsSandboxBase(privateTmpDirs(), opts.bwrap);
  if (typeof base === "string") return base;
  const dir = mkdtempSync(join(tmpdir(), "ff-sandbox-probe-"));
  try {
    const secret = join(dir, "secret");
    writeFileSync(secret, "probe secret", { mode: 0o600 });
    const sandbox = jobSandbox({ name: "fs", why: "", prefix: base }, join(dir, "job"), { hide: [secret], readable: [dir] });
    const r = await runProbe([...sandbox.prefix, process.execPath, "-e", FS_PROBE, secret], opts.timeoutMs ?? 10_000);
    if ("failure" in r) return r.failure;
    const seen = JSON.parse(r.out) as { ifs: unknown; pid: number; procs: string[]; root: string; cwd: string; secret: string; run: string; uid: number; capEff: string; noNewPrivs: string; seccomp: string };
    const net = loopbackOnly(JSON.stringify(seen.ifs));
    if (net) return net;
    if (seen.procs.length > 4 || seen.pid > 4) return `the sandboxed process (pid ${seen.pid}) sees processes ${seen.procs.slice(0, 5).join(", ")}..., not its own namespace's`;
    if (seen.root !== "EROFS") return `the sandboxed process can write to / (${seen.root})`;
    if (seen.cwd !== "ok") return `the sandboxed process cannot write to its working directory (${seen.cwd})`;
    if (seen.secret !== "ENOENT") return `the sandboxed process finds a hidden file (${seen.secret})`;
    if (seen.run !== "ENOENT") return `the sandboxed process sees /run (${seen.run})`;
    if (seen.uid === 0 || seen.capEff !== "0000000000000000" || seen.noNewPrivs !== "1" || seen.seccomp !== "2")
      return `the sandboxed process runs as uid ${seen.uid} with capabilities ${seen.capEff}, no_new_privs ${seen.noNewPrivs}, seccomp mode ${seen.seccomp}`;
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
  /** The wrapper before per-job arguments (with "fs", jobSandbox adds the job's view and the inner end). */
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
    if (!fsFailure) return { name: "fs", why: "probe passed", prefix: fsSandboxBase(privateTmpDirs(), opts.bwrap) as string[] };
    if (mode === "fs") throw new FuzzFarmError("FF_ERR_CONFIG", `sandbox "fs" is not available here: ${fsFailure}`);
  }
  const prefix = opts.prefix ?? NET_SANDBOX_PREFIX;
  const failure = await probeNetSandbox({ ...opts, prefix });
  if (!failure) return { name: "net", why: fsFailure ? `no fs sandbox: ${fsFailure}` : "probe passed", prefix };
  if (mode === "net") throw new FuzzFarmError("FF_ERR_CONFIG", `sandbox "net" is not available here: ${failure}`);
  return { name: "none", why: fsFailure && fsFailure !== failure ? `${failure}; no fs sandbox: ${fsFailure}` : failure, prefix: [] };
}

/** What the fs sandbox of one job shows and leaves out (ignored by the other levels). */
export interface JobSandboxPaths {
  /**
   * Paths target processes must read (the target file, configured engine binaries): each file's project directory
   * (nearest ancestor with a package.json, else its directory) is bound read-only, as is the farm's own code tree.
   * Default [].
   */
  readable?: readonly string[];
  /** Paths that must not exist in the target's view even inside a readable tree (data directory, secret files). Default []. */
  hide?: readonly string[];
}

/**
 * The sandbox of one job's target processes: the worker's wrapper (with "fs", plus the job's view: its workDir
 * writable, the readable trees without the hidden paths), cwd a fresh directory `target-cwd` of the job's workDir.
 */
export function jobSandbox(resolved: ResolvedSandbox, workDir: string, paths: JobSandboxPaths = {}): TargetSandbox {
  const cwd = join(workDir, "target-cwd");
  mkdirSync(cwd, { recursive: true });
  if (resolved.name !== "fs") return { name: resolved.name, prefix: resolved.prefix, cwd };
  const real = realpathOr(workDir);
  const readable = [farmRoot(FARM_CODE_DIR), ...(paths.readable ?? []).flatMap((p) => [p, projectDir(p)])];
  const words = fsJobWords({ readable, hidden: paths.hide ?? [], privateTmps: privateTmpDirs(), workDir: real }, join(real, "target-cwd"));
  return { name: "fs", prefix: [...resolved.prefix, ...words], cwd, dir: real };
}
