// A farm worker: consumes the job queues of the engines it holds, runs each
// job with its engine and publishes the result. It never touches the
// database and holds no tokens: a plain payload in, a plain result out. It
// runs only payloads signed with the farm's job key (see the queue package's
// signing.ts): a job written into Redis by anyone else is rejected unrun.
//
// Engines run their targets in child processes or threads, so this event
// loop stays free to renew BullMQ job locks during long jobs. If this process
// is killed, its job's lock expires and BullMQ hands the job to another worker;
// the coordinator applies whichever result arrives first, once.
import { hostname } from "node:os";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import {
  FuzzFarmError,
  jobErrorOf,
  oneLine,
  parseJob,
  parseResult,
  publishableResult,
  type Engine,
  type EngineName,
  type EngineResultInput,
  type JobPayload,
  type JobResult,
} from "@fuzzfarm/protocol";
import {
  connect,
  jobQueueName,
  openQueues,
  publishHeartbeat,
  publishResult,
  removeHeartbeat,
  QueueWorker,
  UnrecoverableError,
  verifyJobData,
  listRoutes,
  parseJobQueueName,
  routeServedBy,
  type ConnectionOptions,
  type QueueJob,
} from "@fuzzfarm/queue";
import { lineLogger, silentLogger, type Logger } from "@fuzzfarm/logging";
import { failureLog } from "./internal/failure-log";
import { runReplay } from "./maintenance/replay";
import { runMinimize } from "./maintenance/minimize";
import { checkJobPolicy, type JobPolicy } from "./policy";
import { claimJob } from "./internal/job-claim";
import { jobSandbox, resolveSandbox, type SandboxMode, type SandboxProbeOptions } from "./sandbox";

export interface WorkerOptions {
  redisUrl: string;
  /** The farm's job key: only jobs signed with it are run. */
  jobKey: string;
  /** What jobs may ask this worker to execute (target roots, optimizers). Default: any target, no optimizer. */
  policy?: JobPolicy;
  /** Queue key prefix. Default "fuzzfarm". */
  prefix?: string;
  /** Engines this worker holds; it consumes only their queues. */
  engines: Engine[];
  /** Jobs run at once by this process. Default 1 (run more processes for more cores). */
  concurrency?: number;
  /** BullMQ lock duration, ms: after this long without renewal a job is given to another worker. Default 30000. */
  lockMs?: number;
  /** Software version reported in heartbeats. */
  version?: string;
  /** Skip the engines' start-up probes (tests that start many workers). Default false. */
  skipSelfTest?: boolean;
  /**
   * Sandbox of target processes (sandbox.ts): "fs" (bubblewrap: non-root uid without capabilities, seccomp, own
   * network, mount and PID namespace: loopback only, a view of system, farm and target files read-only and the
   * job's directory writable, without `sandboxHide`, private /tmp, own /proc), "net" (own network namespace,
   * loopback only); each refuses to start without its level; "auto" (the strongest whose start-up probe passes),
   * "none". Default "auto".
   */
  sandbox?: SandboxMode;
  /**
   * Paths left out of the "fs" sandbox's view (even inside the farm's or the target's tree): the job key file, the
   * data directory, secret files.
   * Default [].
   */
  sandboxHide?: string[];
  /**
   * Paths target processes must read under the "fs" sandbox besides the job's target and the farm's code (each
   * bound read-only with its project directory), e.g. configured engine binaries. Default [].
   */
  sandboxReadable?: string[];
  /** Probe options of the sandbox (the wrapper to use). Default: NET_SANDBOX_PREFIX. */
  sandboxProbe?: SandboxProbeOptions;
  /** Heartbeat period, ms. Default 2000. */
  heartbeatMs?: number;
  /**
   * Structured logger (pino): one event per call with a level and workerId, and jobId / campaignId / engine / kind
   * for a job's events. Default: from `log`, else silent.
   */
  logger?: Logger;
  /** Plain lines instead: each event's message (level info and above), when no `logger` is given. */
  log?: (line: string) => void;
}

export interface RunningWorker {
  id: string;
  /** The sandbox its target processes run in, settled at start-up. */
  sandbox: "fs" | "net" | "none";
  stop(): Promise<void>;
  /** Resolves when the first job has been picked (for tests). */
  readonly stats: { jobsDone: number; execs: number; currentJobId: string | null };
}

/** What the ready line says of each sandbox level. */
const SANDBOX_LINES = {
  fs: " (bwrap: uid 65534 without capabilities, seccomp, own network, mount and PID namespace: loopback only, system and target files read-only, the job's writable, private /tmp, no data directory, no /run)",
  net: " (own network namespace, loopback only)",
  none: "",
} as const;

export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  if (!opts.jobKey) throw new FuzzFarmError("FF_ERR_CONFIG", "a worker needs the farm's job key (FUZZFARM_JOB_KEY) to check the jobs it runs");
  const prefix = opts.prefix ?? "fuzzfarm";
  const id = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  const logger = (opts.logger ?? (opts.log ? lineLogger(opts.log) : silentLogger())).child({ workerId: id });
  const engines = new Map<EngineName, Engine>(opts.engines.map((e) => [e.name, e]));
  const sandbox = await resolveSandbox(opts.sandbox ?? "auto", opts.sandboxProbe);
  if (!opts.skipSelfTest) {
    // Each engine proves itself (one probe that must crash, one that must not). One that fails is
    // left out, so its queue is not consumed here; with none left the worker refuses to start.
    const failures: string[] = [];
    for (const e of [...engines.values()]) {
      try {
        await e.selfTest();
      } catch (err) {
        engines.delete(e.name);
        failures.push(`${e.name}: ${oneLine(err)}`);
        logger.warn({ engine: e.name, err }, `engine ${e.name} left out: failed its start-up probe: ${oneLine(err)}`);
      }
    }
    if (engines.size === 0) throw new FuzzFarmError("FF_ERR_ENGINE_SELFTEST", `every engine failed its start-up probe (${failures.join("; ")})`);
  }
  const queues = openQueues({ url: opts.redisUrl, prefix });
  const redis = queues.connection;
  const stats = { jobsDone: 0, execs: 0, currentJobId: null as string | null };
  const shutdown = new AbortController();
  let rateWindow = { at: Date.now(), execs: 0 };
  let execsPerSec = 0;

  // What each engine offers here (the wasm engine: the engine configurations its jobs may name).
  const capabilities = Object.fromEntries([...engines.values()].flatMap((e) => (e.capabilities ? [[e.name, e.capabilities()]] : [])));
  const beats = failureLog(logger, "heartbeat");
  const beat = async () => {
    const now = Date.now();
    if (now - rateWindow.at >= 1000) {
      execsPerSec = ((stats.execs - rateWindow.execs) * 1000) / (now - rateWindow.at);
      rateWindow = { at: now, execs: stats.execs };
    }
    await publishHeartbeat(redis, prefix, {
      id,
      host: hostname(),
      pid: process.pid,
      version: opts.version ?? "0.1.0",
      engines: [...engines.keys()],
      currentJobId: stats.currentJobId,
      execsPerSec,
      jobsDone: stats.jobsDone,
      at: now,
      sandbox: sandbox.name,
      capabilities,
    }).then(beats.succeeded, beats.failed);
  };
  await beat();
  const timer = setInterval(beat, opts.heartbeatMs ?? 2000);

  // One consumer per engine queue, but `concurrency` jobs per process in all:
  // when the slots are full every consumer stops fetching until one frees.
  const slots = opts.concurrency ?? 1;
  let active = 0;
  const consumers: QueueWorker[] = [];
  const gate = () => {
    for (const c of consumers) {
      if (active >= slots && !c.isPaused()) c.pause(true);
      else if (active < slots && c.isPaused() && !shutdown.signal.aborted) c.resume();
    }
  };
  const process_ = async (job: QueueJob<unknown>): Promise<{ execs: number }> => {
    active++;
    gate();
    try {
      return await runJob(job);
    } finally {
      active--;
      gate();
    }
  };

  const runJob = async (job: QueueJob<unknown>): Promise<{ execs: number }> => {
    let raw: Record<string, unknown>;
    try {
      raw = verifyJobData(job.data, opts.jobKey);
    } catch (e) {
      // Not from our coordinator: never run, and nothing is reported on its behalf.
      logger.warn({ jobId: job.id, queue: job.queueName }, `rejected job ${job.id}: ${oneLine(e)}`);
      throw new UnrecoverableError(oneLine(e));
    }
    // The signature covers the payload's job id: queued under another id, it is a copy (job-claim.ts).
    if (raw.jobId !== job.id) {
      const why = `job ${String(job.id)} carries the signed payload of job ${String(raw.jobId)}: a signed job runs only under its own id`;
      logger.warn({ jobId: job.id, queue: job.queueName }, `rejected job ${job.id}: ${why}`);
      throw new UnrecoverableError(why);
    }
    let payload: JobPayload;
    try {
      payload = parseJob(raw);
      checkJobPolicy(payload, opts.policy ?? {});
      // The engine's own refusal (a wasm job naming an engine this worker was not configured with).
      engines.get(payload.engine)?.checkJob?.(payload);
    } catch (e) {
      // A malformed payload is rejected, not crashed on; if it names its job, the coordinator learns why.
      logger.warn({ jobId: job.id, campaignId: raw?.campaignId, engine: raw?.engine, queue: job.queueName }, `rejected job ${job.id}: ${oneLine(e)}`);
      if (typeof raw?.jobId === "string" && typeof raw?.campaignId === "string" && typeof raw?.engine === "string") await sendError(raw, oneLine(e));
      throw new UnrecoverableError(oneLine(e));
    }
    const claim = await claimJob(redis, prefix, payload.jobId, id, lockDuration);
    if (!claim.ok) {
      logger.warn({ jobId: payload.jobId, campaignId: payload.campaignId, queue: job.queueName }, `rejected job ${job.id}: ${claim.why}`);
      // Already ran: never again. Running elsewhere (a duplicate delivery): BullMQ tries again after its backoff.
      throw claim.final ? new UnrecoverableError(claim.why) : new Error(claim.why);
    }
    try {
      const r = await runClaimed(payload);
      await claim.done();
      return r;
    } catch (e) {
      await claim.release().catch(() => {});
      throw e;
    }
  };

  const runClaimed = async (payload: JobPayload): Promise<{ execs: number }> => {
    const engine = engines.get(payload.engine)!;
    const ids = { jobId: payload.jobId, campaignId: payload.campaignId, engine: payload.engine, kind: payload.kind, ...(payload.kind !== "fuzz" ? { bucketId: payload.bucketId } : {}) };
    logger.debug(ids, `job ${payload.jobId} started`);
    stats.currentJobId = payload.jobId;
    const started = new Date();
    const workDir = await mkdtemp(join(tmpdir(), "ffjob-"));
    let base = 0;
    let out: EngineResultInput;
    try {
      const ctx = {
        signal: shutdown.signal,
        workDir,
        sandbox: jobSandbox(sandbox, workDir, {
          readable: [payload.target.path, ...(opts.sandboxReadable ?? [])],
          hide: opts.sandboxHide,
        }),
        onProgress: (p: { execs: number }) => {
          stats.execs += p.execs - base;
          base = p.execs;
        },
      };
      out =
        payload.kind === "replay"
          ? await runReplay(engine, payload, ctx)
          : payload.kind === "minimize"
            ? await runMinimize(engine, payload, ctx)
            : await engine.run(payload, ctx);
    } catch (e) {
      out = { execs: base, busyMs: Date.now() - started.getTime(), error: jobErrorOf(e) };
    } finally {
      await rm(workDir, { recursive: true, force: true }).catch((e) => logger.warn({ ...ids, workDir, err: e }, `job ${payload.jobId}: its directory ${workDir} was not removed: ${oneLine(e)}`));
      stats.currentJobId = null;
    }
    stats.execs += Math.max(0, out.execs - base);
    const resultIds = { jobId: payload.jobId, campaignId: payload.campaignId, workerId: id, engine: payload.engine, kind: payload.kind, startedAt: started.toISOString(), finishedAt: new Date().toISOString() };
    let result: JobResult;
    try {
      // Only what a result may report (protocol's reported.ts), within its caps; the coordinator reads the bucket from the job row.
      result = publishableResult(out, resultIds);
    } catch (e) {
      // Too large or malformed: the coordinator would refuse it. It learns why from an error result instead.
      logger.error({ ...ids, err: e }, `job ${payload.jobId}: result not published: ${oneLine(e)}`);
      result = publishableResult({ execs: out.execs, busyMs: out.busyMs, error: { kind: "internal", message: `result not published: ${oneLine(e)}` } }, resultIds);
    }
    try {
      await publishResult(queues, result);
    } catch (e) {
      // The job fails in BullMQ and runs again (here or elsewhere) after its lock expires; say why.
      logger.error({ ...ids, err: e }, `job ${payload.jobId}: result not published: ${oneLine(e)}`);
      throw e;
    }
    stats.jobsDone++;
    const done = { ...ids, execs: result.execs, findings: result.findings.length, busyMs: result.busyMs, ...(result.error ? { error: result.error } : {}) };
    const line = `job ${payload.jobId}: ${result.execs} execs, ${result.findings.length} findings${result.error ? `, error ${result.error.kind}: ${result.error.message}` : ""}`;
    if (result.error) logger.warn(done, line);
    else logger.info(done, line);
    return { execs: result.execs };
  };

  /**
   * Report a refused job as a bad-job result of the job's kind (a refused replay still ends its bucket's replay).
   * The result is parsed like any.
   */
  async function sendError(raw: Record<string, unknown>, message: string) {
    const now = new Date().toISOString();
    const maintenance = raw.kind === "replay" || raw.kind === "minimize" ? { kind: raw.kind } : {};
    const result = { jobId: raw.jobId, campaignId: raw.campaignId, engine: raw.engine, ...maintenance, workerId: id, execs: 0, busyMs: 0, startedAt: now, finishedAt: now, error: { kind: "bad-job", message } };
    try {
      await publishResult(queues, parseResult(result));
    } catch (e) {
      logger.error({ jobId: raw.jobId, campaignId: raw.campaignId, engine: raw.engine, err: e }, `job ${String(raw.jobId)}: refusal not published: ${oneLine(e)}`);
      throw e;
    }
  }

  const lockDuration = opts.lockMs ?? 30_000;
  // One blocking connection per consumer; BullMQ does not close connections it was given.
  const connections: ReturnType<typeof connect>[] = [];
  const consume = (queueName: string) => {
    const connection = connect(opts.redisUrl);
    // Connection errors reach the consumer below, which re-emits them as its "error" event (logged there);
    // this listener only keeps ioredis from printing them a second time as unhandled.
    connection.on("error", () => {});
    connections.push(connection);
    const w = new QueueWorker(queueName, process_, {
      connection: connection as ConnectionOptions,
      prefix,
      concurrency: slots,
      lockDuration,
      stalledInterval: Math.max(1000, Math.floor(lockDuration / 2)),
      maxStalledCount: 3,
    });
    w.on("error", (e) => logger.error({ queue: queueName, err: e }, `queue error: ${oneLine(e)}`));
    consumers.push(w);
    gate();
  };
  for (const name of engines.keys()) for (const kind of ["fuzz", "maintenance"] as const) consume(jobQueueName(name, kind));
  // Routed queues (`jobs-wasm@deno`, queue routes.ts): those whose engine configurations this worker offers,
  // looked up with every heartbeat, so jobs that need them reach only capable workers.
  const routes = new Set<string>();
  const routeLookups = failureLog(logger, "route lookup");
  const followRoutes = async () => {
    let names: string[];
    try {
      names = await listRoutes(redis, prefix);
      routeLookups.succeeded();
    } catch (e) {
      routeLookups.failed(e);
      return;
    }
    for (const name of names) {
      const q = parseJobQueueName(name);
      if (shutdown.signal.aborted || routes.has(name) || !q?.route || !engines.has(q.engine as EngineName)) continue;
      if (!routeServedBy(q.route, capabilities[q.engine] ?? [])) continue;
      routes.add(name);
      consume(name);
      logger.info({ queue: name }, `consuming ${name}`);
    }
  };
  await followRoutes();
  const routeTimer = setInterval(() => void followRoutes(), opts.heartbeatMs ?? 2000);
  const offers = Object.entries(capabilities).map(([e, c]) => `; ${e} offers ${c.join(", ")}`).join("");
  logger.info({ engines: [...engines.keys()], capabilities, sandbox: sandbox.name }, `worker ${id} ready: engines ${[...engines.keys()].join(", ")}${offers}; sandbox ${sandbox.name}${SANDBOX_LINES[sandbox.name]}${sandbox.why === "probe passed" ? "" : ` (${sandbox.why})`}`);

  return {
    id,
    sandbox: sandbox.name,
    stats,
    async stop() {
      shutdown.abort();
      clearInterval(timer);
      clearInterval(routeTimer);
      await Promise.all(consumers.map((c) => c.close()));
      connections.forEach((c) => c.disconnect());
      // the coordinator drops a heartbeat that is not renewed (after its TTL) anyway: a failure here only delays that
      await removeHeartbeat(redis, prefix, id).catch((e) => logger.warn({ err: e }, `heartbeat not removed at stop: ${oneLine(e)}`));
      await queues.close();
    },
  };
}
