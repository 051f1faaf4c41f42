// Local worker processes for `up` and `fuzz`: real `fuzzfarm worker`
// processes (so a crash or kill -9 of one is exactly what a remote one does).
// Each logs JSON lines on its stderr; they are logged again here, at their
// level, through the command's logger, as `[worker PID] message`.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { resolveJobKey, type Config } from "@fuzzfarm/config";
import { parseLogLine, type Logger } from "@fuzzfarm/logging";
import { readHeartbeats, type FarmQueues } from "@fuzzfarm/queue";
import { workerCommandLine } from "./runtime";

export interface LocalWorkers {
  procs: ChildProcess[];
  stop(): Promise<void>;
}

/** pino's level numbers and names. */
const LEVEL_NAMES = { 60: "fatal", 50: "error", 40: "warn", 30: "info", 20: "debug", 10: "trace" } as const;

/** `base` is the environment the workers start from (their targets inherit it, less the farm's secrets): default this process's. */
export function startLocalWorkers(config: Config, n: number, logger: Logger, env: NodeJS.ProcessEnv = {}, base: NodeJS.ProcessEnv = process.env): LocalWorkers {
  const procs: ChildProcess[] = [];
  for (let i = 0; i < n; i++) {
    const p = spawn(process.execPath, workerCommandLine(), {
      env: {
        ...base,
        FUZZFARM_REDIS_URL: config.redisUrl,
        FUZZFARM_QUEUE_PREFIX: config.queuePrefix,
        FUZZFARM_LOCK_MS: String(config.lockMs),
        FUZZFARM_ENGINES: config.engines.join(","),
        FUZZFARM_SANDBOX: config.sandbox,
        FUZZFARM_JOB_KEY: resolveJobKey(config),
        FUZZFARM_LOG_LEVEL: config.logLevel,
        // the worker stops when its stdin (held by this process) closes: however this command ends, even
        // killed outright, no worker of it is left running (one did, for minutes, taking the farm's jobs)
        FUZZFARM_PARENT_LIFELINE: "1",
        ...env,
      },
      stdio: ["pipe", "ignore", "pipe"],
    });
    createInterface({ input: p.stderr!, crlfDelay: Infinity }).on("line", (line) => {
      if (!line) return;
      const e = parseLogLine(line);
      // a line that is no event (a start-up failure before the worker's logger exists, a crash) is an error
      if (!e) return logger.error({ workerPid: p.pid }, `[worker ${p.pid}] ${line}`);
      const { level, msg, time: _t, pid: _p, hostname: _h, name: _n, ...fields } = e;
      logger[LEVEL_NAMES[level as keyof typeof LEVEL_NAMES] ?? "info"]({ ...fields, workerPid: p.pid }, `[worker ${p.pid}] ${msg}`);
    });
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
