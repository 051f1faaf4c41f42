// The sandbox of target processes. Targets are code the farm does not trust:
// on Linux each target process (input executors, node programs and warm
// hosts, wasm runners) starts in its own user and network namespace whose
// only interface is a fresh loopback, so it cannot reach the farm's Redis or
// PostgreSQL, neither on other addresses (no route) nor on the host's
// 127.0.0.1 (its loopback is not the host's). Being in another user namespace
// also keeps it out of /proc/<pid>/environ of the worker and every other
// process outside. The wrapper is util-linux's `unshare` (no setuid helper:
// an unprivileged user namespace is enough, root or not), then `ip link set
// lo up` (a new network namespace starts with loopback down) and an exec of
// the real command, so the process the engine holds is the target itself
// (its pid, its exit status and signal, its IPC channel).
//
// The worker probes the wrapper once at start-up; "auto" uses it when the
// probe passes, "net" refuses to start without it, "none" never uses it.
// Each job's target processes also get their own working directory.
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { FuzzFarmError, type TargetSandbox } from "@fuzzfarm/protocol";

/** A worker's sandbox setting (config `sandbox`, env FUZZFARM_SANDBOX). */
export type SandboxMode = "auto" | "net" | "none";

/**
 * The command words put before a target's command line: own user + network namespace, loopback up, exec.
 * `ip` is looked up in the sbin directories too (some distributions keep it there, off a non-root user's PATH).
 */
export const NET_SANDBOX_PREFIX: readonly string[] = ["unshare", "--net", "--user", "--map-root-user", "/bin/sh", "-c", 'PATH="$PATH:/usr/sbin:/sbin" ip link set lo up && exec "$@"', "ff-sandbox"];

export interface SandboxProbeOptions {
  /** The wrapper to probe. Default NET_SANDBOX_PREFIX. */
  prefix?: readonly string[];
  /** Give up after this long, ms. Default 10000. */
  timeoutMs?: number;
}

// Run inside the wrapper: the interfaces node sees that are up (libuv lists only those).
const PROBE = "process.stdout.write(JSON.stringify(require('node:os').networkInterfaces()))";

/**
 * Start one node process under the wrapper and check that its only interface
 * is loopback, up, with 127.0.0.1. Resolves to `null` when the wrapper works,
 * else to one line saying why not.
 */
export function probeNetSandbox(opts: SandboxProbeOptions = {}): Promise<string | null> {
  const [command, ...args] = [...(opts.prefix ?? NET_SANDBOX_PREFIX), process.execPath, "-e", PROBE];
  if (process.platform !== "linux") return Promise.resolve(`network namespaces are Linux only (this is ${process.platform})`);
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    const child = spawn(command!, args, { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin" } });
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 10_000);
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve(`cannot run ${command}: ${(e as NodeJS.ErrnoException).code ?? e.message}`);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        const line = err.split("\n").find((l) => l.trim()) ?? "";
        return resolve(`${command} ${signal ? `was killed (${signal})` : `exited with code ${code}`}${line ? `: ${line.trim().slice(0, 200)}` : ""}`);
      }
      try {
        const ifs = JSON.parse(out) as Record<string, { address: string }[]>;
        const names = Object.keys(ifs);
        if (names.length !== 1 || !ifs[names[0]!]!.some((a) => a.address === "127.0.0.1"))
          return resolve(`the sandboxed process sees interfaces ${JSON.stringify(names)}, not loopback alone`);
        resolve(null);
      } catch {
        resolve(`the sandboxed process printed no interface list`);
      }
    });
  });
}

/** The sandbox a worker settled on at start-up. */
export interface ResolvedSandbox {
  name: "net" | "none";
  /** Why "none" under "auto" (the probe's failure), or that it was configured. */
  why: string;
  prefix: readonly string[];
}

/**
 * Settle a worker's sandbox once: "none" as configured, "net" when the probe
 * passes (with mode "net", a failing probe throws FF_ERR_CONFIG), else "none"
 * with the probe's reason.
 */
export async function resolveSandbox(mode: SandboxMode, opts: SandboxProbeOptions = {}): Promise<ResolvedSandbox> {
  if (mode === "none") return { name: "none", why: "configured", prefix: [] };
  const prefix = opts.prefix ?? NET_SANDBOX_PREFIX;
  const failure = await probeNetSandbox({ ...opts, prefix });
  if (!failure) return { name: "net", why: "probe passed", prefix };
  if (mode === "net") throw new FuzzFarmError("FF_ERR_CONFIG", `sandbox "net" is not available here: ${failure}`);
  return { name: "none", why: failure, prefix: [] };
}

/** The sandbox of one job's target processes: the worker's wrapper, cwd a fresh directory `target-cwd` of the job's workDir. */
export function jobSandbox(resolved: ResolvedSandbox, workDir: string): TargetSandbox {
  const cwd = join(workDir, "target-cwd");
  mkdirSync(cwd, { recursive: true });
  return { name: resolved.name, prefix: resolved.prefix, cwd };
}
