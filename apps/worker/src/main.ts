// fuzzfarm worker process: joins a farm given its Redis URL (FUZZFARM_REDIS_URL / REDIS_URL).
// Logs one JSON line per event on stderr (pretty on a terminal), level FUZZFARM_LOG_LEVEL (default info).
import { loadConfig, resolveJobKey, scrubSecretEnv, secretPaths } from "@fuzzfarm/config";
import { processLogger } from "@fuzzfarm/logging";
import { oneLine } from "@fuzzfarm/protocol";
import { startWorker, loadEngines } from "@fuzzfarm/worker";

async function main() {
  const config = loadConfig();
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
  if (!engines.length) throw new Error("no engine could be loaded");
  const w = await startWorker({
    redisUrl: config.redisUrl,
    jobKey,
    policy: { targetRoots: config.targetRoots, allowedOptimizers: config.allowedOptimizers },
    prefix: config.queuePrefix,
    engines,
    lockMs: config.lockMs,
    skipSelfTest: config.skipSelfTest,
    sandbox: config.sandbox,
    sandboxHide: hide,
    // configured engine binaries stay readable if they live in a tmp directory the "fs" sandbox replaces
    sandboxReadable: [...config.wasmEngines.flatMap((c) => c.command), config.denoPath ?? "", config.bunPath ?? ""],
    logger,
  });
  let stopping = false;
  const bye = async () => {
    if (stopping) return;
    stopping = true;
    await w.stop().catch((e) => logger.error({ err: e }, `stop: ${oneLine(e)}`));
    logger.info({ workerId: w.id }, "worker stopped");
    process.exit(0);
  };
  process.once("SIGTERM", bye);
  process.once("SIGINT", bye);
  // A local worker of `fuzzfarm fuzz` / `up`: its parent holds our stdin, which closes when the parent ends in any
  // way (killed outright too); then stop as on SIGTERM, returning the job in hand.
  if (process.env.FUZZFARM_PARENT_LIFELINE === "1") {
    delete process.env.FUZZFARM_PARENT_LIFELINE;
    process.stdin.once("end", () => {
      logger.warn({ workerId: w.id }, "the command that started this worker is gone: stopping");
      void bye();
    });
    process.stdin.on("error", () => void bye());
    process.stdin.resume();
  }
}

main().catch((e) => {
  console.error(`fuzzfarm worker: ${oneLine(e)}`);
  process.exit(2);
});
