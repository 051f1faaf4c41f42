// Local worker processes for `up` and `fuzz`: real `fuzzfarm worker`
// processes (so a crash or kill -9 of one is exactly what a remote one does).
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Config } from "@fuzzfarm/config";

const WORKER_MAIN = fileURLToPath(new URL("../../worker/src/main.ts", import.meta.url));

export interface LocalWorkers {
  procs: ChildProcess[];
  stop(): Promise<void>;
}

export function startLocalWorkers(config: Config, n: number, log: (l: string) => void, env: NodeJS.ProcessEnv = {}): LocalWorkers {
  const procs: ChildProcess[] = [];
  for (let i = 0; i < n; i++) {
    const p = spawn(process.execPath, ["--import", "tsx", WORKER_MAIN], {
      env: {
        ...process.env,
        FUZZFARM_REDIS_URL: config.redisUrl,
        FUZZFARM_QUEUE_PREFIX: config.queuePrefix,
        FUZZFARM_LOCK_MS: String(config.lockMs),
        FUZZFARM_ENGINES: config.engines.join(","),
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
