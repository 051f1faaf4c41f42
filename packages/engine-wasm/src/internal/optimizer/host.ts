// The parent side of optimizer/host.mjs: one child process per binaryen release
// under test (`--optimizer DIR`), started on first use and again after it dies.
// A release that exits or aborts on a module is an OptimizerFailure naming what
// it printed last, not a dead worker.
import { fork, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { FuzzFarmError } from "@fuzzfarm/protocol";

const HOST = fileURLToPath(new URL("./host.mjs", import.meta.url));
/** How long one optimization may take before the release is taken for hung. */
const OPTIMIZE_TIMEOUT_MS = 60_000;

/** Thrown when the optimizer under test fails or emits an invalid module (a finding, not a usage error). */
export class OptimizerFailure extends Error {}

/** The entry file of the binaryen package in `dir` (the package itself, or a directory whose node_modules has it). */
export function binaryenEntry(dir: string): string {
  const d = resolve(dir);
  const pkg = join(d, "package.json");
  if (existsSync(pkg) && JSON.parse(readFileSync(pkg, "utf8")).name === "binaryen") return createRequire(pkg).resolve(d);
  try {
    return createRequire(join(d, "noop.js")).resolve("binaryen");
  } catch {
    throw new FuzzFarmError("FF_ERR_CONFIG", `--optimizer ${dir}: no binaryen package there`);
  }
}

export interface HostInfo {
  version: string;
  /** The release has a `Features` object (binaryen 84+): features are set explicitly. */
  api: { features: boolean; setShrinkLevel: boolean };
}

type Reply = { id: number; ok: true; bytes: Uint8Array } | { id: number; ok: false; message: string };

class Host {
  private child: ChildProcess | null = null;
  private started: Promise<HostInfo> | null = null;
  private stderr = "";
  private next = 1;
  private pending = new Map<number, (r: Reply | { died: string }) => void>();
  constructor(private readonly dir: string, private readonly entry: string) {}

  start(): Promise<HostInfo> {
    if (this.started) return this.started;
    this.stderr = "";
    const child = fork(HOST, [this.entry], { serialization: "advanced", stdio: ["ignore", "ignore", "pipe", "ipc"], execArgv: [] });
    this.child = child;
    // An idle release process does not keep its parent alive (a request's timer does while it runs).
    child.unref();
    (child.stderr as unknown as { unref(): void }).unref();
    (child.channel as unknown as { unref(): void } | undefined)?.unref();
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (s: string) => (this.stderr = (this.stderr + s).slice(-4000)));
    this.started = new Promise<HostInfo>((res, rej) => {
      const slow = setTimeout(() => child.kill("SIGKILL"), OPTIMIZE_TIMEOUT_MS);
      child.once("message", (m: { ready: boolean; message?: string } & HostInfo) => {
        clearTimeout(slow);
        if (m.ready) res({ version: m.version, api: m.api });
        else rej(new FuzzFarmError("FF_ERR_CONFIG", `--optimizer ${this.dir}: ${m.message}`));
        child.on("message", (r: Reply) => {
          this.pending.get(r.id)?.(r);
          this.pending.delete(r.id);
        });
      });
      child.once("exit", (code, signal) => {
        clearTimeout(slow);
        const why = this.lastWords() || (signal ? `signal ${signal}` : `exit code ${code}`);
        rej(new FuzzFarmError("FF_ERR_CONFIG", `--optimizer ${this.dir}: the release does not load: ${why}`));
        for (const done of this.pending.values()) done({ died: why });
        this.pending.clear();
        if (this.child === child) {
          this.child = null;
          this.started = null;
        }
      });
    });
    this.started.catch(() => {});
    return this.started;
  }

  /** What the release printed last (its `Fatal: ...` line), one line. */
  private lastWords(): string {
    return this.stderr.replace(/\s+/g, " ").trim().slice(-300);
  }

  async optimize(bytes: Uint8Array, level: string): Promise<Uint8Array> {
    await this.start();
    const child = this.child!;
    const id = this.next++;
    const r = await new Promise<Reply | { died: string }>((res) => {
      const timer = setTimeout(() => {
        res({ died: `no answer in ${OPTIMIZE_TIMEOUT_MS / 1000} s` });
        child.kill("SIGKILL");
      }, OPTIMIZE_TIMEOUT_MS);
      this.pending.set(id, (x) => {
        clearTimeout(timer);
        res(x);
      });
      child.send({ id, level, bytes });
    });
    if ("died" in r) throw new OptimizerFailure(`optimizer -${level} process died: ${r.died}`);
    if (!r.ok) throw new OptimizerFailure(r.message);
    // IPC delivers a view at an offset into a larger buffer; wabt reads whole buffers
    return new Uint8Array(r.bytes);
  }

  close(): void {
    this.child?.kill();
    this.child = null;
    this.started = null;
  }
}

const hosts = new Map<string, Host>();

/** The host of the release in `dir` (one per directory and process). Throws FF_ERR_CONFIG when there is no binaryen package. */
export function hostOf(dir: string): Host {
  const key = resolve(dir);
  let h = hosts.get(key);
  if (!h) {
    h = new Host(dir, binaryenEntry(dir));
    hosts.set(key, h);
  }
  return h;
}

/** Stop every release process (tests, CLI exit); the next use starts them again. */
export function closeHosts(): void {
  for (const h of hosts.values()) h.close();
}
