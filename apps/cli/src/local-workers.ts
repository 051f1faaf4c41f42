// Local worker processes for `up` and `fuzz`: real `fuzzfarm worker`
// processes (so a crash or kill -9 of one is exactly what a remote one does).
import { spawn, type ChildProcess } from "node:child_process";
import { resolveJobKey, type Config } from "@fuzzfarm/config";
import { readHeartbeats, type FarmQueues } from "@fuzzfarm/queue";
import { workerCommandLine } from "./runtime";

export interface LocalWorkers {
  procs: ChildProcess[];
  stop(): Promise<void>;
}

export function startLocalWorkers(config: Config, n: number, log: (l: string) => void, env: NodeJS.ProcessEnv = {}): LocalWorkers {
  const procs: ChildProcess[] = [];
  for (let i = 0; i < n; i++) {
    const p = spawn(process.execPath, workerCommandLine(), {
      env: {
        ...process.env,
        FUZZFARM_REDIS_URL: config.redisUrl,
        FUZZFARM_QUEUE_PREFIX: config.queuePrefix,
        FUZZFARM_LOCK_MS: String(config.lockMs),
        FUZZFARM_ENGINES: config.engines.join(","),
        FUZZFARM_SANDBOX: config.sandbox,
        FUZZFARM_JOB_KEY: resolveJobKey(config),
        ...env,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    p.stderr!.setEncoding("utf8");
    p.stderr!.on("data", (d: string) => d.split("\n").filter(Boolean).forEach((l) => log(l)));
    procs.push(p);
  }
  return {
    procs,
    async stop() {
      await Promise.all(
        procs.map(
          (p) =>
            new Promise<void>((resolve) => {
              if (p.exitCode !== null || p.signalCode !== null) return resolve();
              const t = setTimeout(() => p.kill("SIGKILL"), 10_000);
              p.once("exit", () => {
                clearTimeout(t);
                resolve();
              });
              p.kill("SIGTERM");
            }),
        ),
      );
    },
  };
}

/**
 * Wait until one of these local workers sends its first heartbeat (at most
 * `ms`): a campaign's time box is fuzzing time, and a worker boots in seconds
 * on a busy machine. Returns false if none came up in time.
 */
export async function waitForLocalWorker(workers: LocalWorkers, connection: FarmQueues["connection"], prefix: string, ms = 60_000): Promise<boolean> {
  const pids = new Set(workers.procs.map((p) => p.pid));
  if (!pids.size) return true;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if ((await readHeartbeats(connection, prefix)).some((h) => pids.has(h.pid))) return true;
    if (workers.procs.every((p) => p.exitCode !== null || p.signalCode !== null)) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}
