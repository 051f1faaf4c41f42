// `fuzzfarm worker`: this process becomes a farm worker until interrupted.
import { resolveJobKey, scrubSecretEnv, secretPaths, type Config } from "@fuzzfarm/config";
import { processLogger } from "@fuzzfarm/logging";
import { startWorker, loadEngines } from "@fuzzfarm/worker";
import { pingRedis } from "@fuzzfarm/queue";

/** Runs as the worker app does: one JSON line per event on stderr (pretty on a terminal), at FUZZFARM_LOG_LEVEL. */
export async function workerCommand(o: { concurrency?: number }, config: Config): Promise<number> {
  await pingRedis(config.redisUrl);
  const logger = await processLogger({ name: "worker", level: config.logLevel });
  const jobKey = resolveJobKey(config);
  // What the "fs" sandbox covers (the data directory, secret files), named before their variables go.
  const hide = secretPaths(config, process.env);
  // Targets are children of this process: they must not inherit the farm's credentials.
  scrubSecretEnv(process.env);
  const { engines, missing } = await loadEngines([...config.engines], {
    // Engine binaries by name (FUZZFARM_WASM_ENGINES, FUZZFARM_DENO_PATH, FUZZFARM_BUN_PATH): jobs pick names only.
    wasm: { commands: config.wasmEngines, denoPath: config.denoPath, bunPath: config.bunPath },
  });
  for (const m of missing) logger.warn({ engine: m.name }, `engine ${m.name} unavailable: ${m.why}`);
  if (!engines.length) return 2;
  const w = await startWorker({
    redisUrl: config.redisUrl,
    jobKey,
    policy: { targetRoots: config.targetRoots, allowedOptimizers: config.allowedOptimizers },
    prefix: config.queuePrefix,
    engines,
    concurrency: o.concurrency,
    lockMs: config.lockMs,
    skipSelfTest: config.skipSelfTest,
    sandbox: config.sandbox,
    sandboxHide: hide,
    // configured engine binaries stay readable if they live in a tmp directory the "fs" sandbox replaces
    sandboxReadable: [...config.wasmEngines.flatMap((c) => c.command), config.denoPath ?? "", config.bunPath ?? ""],
    logger,
  });
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await w.stop();
  return 0;
}
