// @fuzzfarm/config: the apps' configuration, parsed once, typed and frozen.
// Precedence: defaults < file (fuzzfarm.config.json) < FUZZFARM_* env < CLI flags.
// Packages never read process.env: apps call loadConfig() and pass values down.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { LOG_LEVELS } from "@fuzzfarm/logging";
import { withStoredRedisPassword } from "./redis-password";
import { EnginePathSchema, WasmEnginesSchema } from "./wasm-engines";

export { parseCommandEngines, type CommandEngineConfig } from "./wasm-engines";
export { redisPasswordFile, withStoredRedisPassword } from "./redis-password";

export const ConfigSchema = z.object({
  /**
   * Redis URL of the farm's queues. Default redis://127.0.0.1:6379 (env FUZZFARM_REDIS_URL or REDIS_URL). A local URL
   * without credentials gets the password of the Redis `fuzzfarm up` started, from `<dataDir>/redis/password`.
   */
  redisUrl: z.string().regex(/^rediss?:\/\//, "must be a redis:// URL").default("redis://127.0.0.1:6379"),
  /** PostgreSQL URL. Default postgresql://postgres@127.0.0.1:5432/fuzzfarm (env FUZZFARM_DATABASE_URL or DATABASE_URL). */
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL").default("postgresql://postgres@127.0.0.1:5432/fuzzfarm"),
  /** Key prefix of the BullMQ queues; farms sharing a Redis use different prefixes. Default "fuzzfarm". */
  queuePrefix: z.string().regex(/^[A-Za-z0-9_.-]+$/).default("fuzzfarm"),
  /** Dashboard / API listen address. Default 127.0.0.1. */
  httpHost: z.string().default("127.0.0.1"),
  /** Host names (comma-separated in env) the dashboard answers to besides loopback and httpHost; others get 421. Default none. */
  allowedHosts: z
    .preprocess((v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v), z.array(z.string().min(1)))
    .default([]),
  /** Dashboard / API port. Default 8377. */
  httpPort: z.coerce.number().int().min(0).max(65535).default(8377),
  /** Local workers started by `up` / `fuzz`. Default: one per core. */
  workers: z.coerce.number().int().min(0).max(256).default(availableParallelism()),
  /** Where `up` keeps local service data and artifacts. Default ./.fuzzfarm */
  dataDir: z.string().default(".fuzzfarm"),
  /** Token for API writes (triage actions). Default: generated at start and printed by `up`. */
  adminToken: z.string().min(16).optional(),
  /** Key that signs jobs (coordinator) and checks them (workers), 32+ characters. Default: the key file `<dataDir>/job-key`, created on first use. */
  jobKey: z.string().min(32).optional(),
  /** Workers run only targets under these directories (comma-separated in env). Default: any. */
  targetRoots: z.preprocess((v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v), z.array(z.string().min(1))).optional(),
  /** Optimizer commands / directories wasm jobs and stored buckets may run here (";"-separated in env; "none" for none). Default: none (`fuzzfarm fuzz --optimizer(-cmd)` lists its own for its workers). */
  allowedOptimizers: z
    .preprocess((v) => (typeof v === "string" ? (v.trim() === "none" ? [] : v.split(";").map((s) => s.trim()).filter(Boolean)) : v), z.array(z.string().min(1)))
    .optional(),
  /**
   * Command engines wasm jobs may name on this worker (env FUZZFARM_WASM_ENGINES, ";"-separated): `NAME=ARGV` starts a
   * runner that follows the runner protocol (packages/engine-wasm README), `NAME:TIER=ARGS` adds tier `NAME:TIER`
   * (ARGS inserted after ARGV's first word). ARGV is split into words as a shell would (quotes group, nothing is
   * expanded) and run without a shell. A job names `NAME[:TIER]`, never a command. Default none.
   */
  wasmEngines: WasmEnginesSchema.default([]),
  /** Deno binary of this worker's wasm engine, or "none" for no Deno (env FUZZFARM_DENO_PATH). Default: the pinned npm package. */
  denoPath: EnginePathSchema.optional(),
  /** Bun binary of this worker's wasm engine, or "none" for no Bun (env FUZZFARM_BUN_PATH). Default: the pinned npm package. */
  bunPath: EnginePathSchema.optional(),
  /** Token workers present (reserved for HTTP-reporting workers). */
  workerToken: z.string().min(16).optional(),
  /**
   * Token of CI clients (`fuzzfarm ci --farm URL`): on the farm, it lets its holder start campaigns and read their
   * verdict data through /api/ci/* and nothing else (the admin token works there too); in the CLI, the token
   * `ci --farm` sends when --token is not given (env FUZZFARM_CI_TOKEN). Default none: only the admin token.
   */
  ciToken: z.string().min(16).optional(),
  /** Seconds of work per fuzz job (big enough that queue + DB overhead stays small). Default 5. */
  jobSeconds: z.coerce.number().min(0.2).max(3600).default(5),
  /** BullMQ lock duration of a job, ms; a killed worker's job runs again elsewhere after it. Default 30000. */
  lockMs: z.coerce.number().int().min(1000).default(30_000),
  /** Engines a worker loads (comma-separated in env). Default all: input,node,wasm. */
  engines: z
    .preprocess((v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v), z.array(z.enum(["input", "node", "wasm"])).min(1))
    .default(["input", "node", "wasm"]),
  /**
   * Sandbox of the target processes a worker starts: "net" runs each in its own user and network namespace with only
   * loopback (Linux, `unshare` from util-linux; the worker refuses to start without it); "fs" runs each under
   * bubblewrap (`bwrap`) as uid 65534 without capabilities, under seccomp, in a view built from nothing (system and
   * target files read-only, the job's directory writable, no data directory, secret files or /run, private /tmp,
   * own /proc; needs `perl` too); "auto" uses the strongest that a probe at start-up shows working, "none" runs them
   * with the worker's network and files. Each job's targets get their own working
   * directory either way. Default "auto" (env FUZZFARM_SANDBOX).
   */
  sandbox: z.enum(["auto", "fs", "net", "none"]).default("auto"),
  /**
   * Environment variables `fuzzfarm ci` passes on to the code it runs (a pull request's head and base, which it does not
   * trust) besides PATH, HOME, the locale and TZ: names only, the values come from the CI job's environment
   * (comma-separated in env FUZZFARM_TARGET_ENV). Default none.
   */
  targetEnv: z.preprocess((v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v), z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be variable names"))).default([]),
  /** Skip the engines' start-up probes in workers (tests starting many workers). Default false. */
  skipSelfTest: z.preprocess((v) => (typeof v === "string" ? v === "1" || v === "true" : v), z.boolean()).default(false),
  /**
   * Least severe log event the farm's processes write (coordinator, workers, dashboard; the CLI's log lines): fatal,
   * error, warn, info, debug, trace or silent. Default "info" (env FUZZFARM_LOG_LEVEL).
   */
  logLevel: z.enum(LOG_LEVELS).default("info"),
});
export type Config = Readonly<z.infer<typeof ConfigSchema>>;
export type ConfigInput = z.input<typeof ConfigSchema>;

const ENV: Record<string, keyof ConfigInput> = {
  FUZZFARM_REDIS_URL: "redisUrl",
  REDIS_URL: "redisUrl",
  FUZZFARM_DATABASE_URL: "databaseUrl",
  DATABASE_URL: "databaseUrl",
  FUZZFARM_QUEUE_PREFIX: "queuePrefix",
  FUZZFARM_HTTP_HOST: "httpHost",
  FUZZFARM_HTTP_PORT: "httpPort",
  FUZZFARM_ALLOWED_HOSTS: "allowedHosts",
  FUZZFARM_WORKERS: "workers",
  FUZZFARM_DATA_DIR: "dataDir",
  FUZZFARM_ADMIN_TOKEN: "adminToken",
  FUZZFARM_WORKER_TOKEN: "workerToken",
  FUZZFARM_CI_TOKEN: "ciToken",
  FUZZFARM_JOB_KEY: "jobKey",
  FUZZFARM_TARGET_ROOTS: "targetRoots",
  FUZZFARM_ALLOWED_OPTIMIZERS: "allowedOptimizers",
  FUZZFARM_WASM_ENGINES: "wasmEngines",
  FUZZFARM_DENO_PATH: "denoPath",
  FUZZFARM_BUN_PATH: "bunPath",
  FUZZFARM_JOB_SECONDS: "jobSeconds",
  FUZZFARM_LOCK_MS: "lockMs",
  FUZZFARM_ENGINES: "engines",
  FUZZFARM_SKIP_SELFTEST: "skipSelfTest",
  FUZZFARM_SANDBOX: "sandbox",
  FUZZFARM_TARGET_ENV: "targetEnv",
  FUZZFARM_LOG_LEVEL: "logLevel",
};

export interface LoadConfigOptions {
  /** Flags already parsed by the CLI (highest precedence); undefined values are ignored. */
  flags?: Partial<Record<keyof ConfigInput, unknown>>;
  /** Environment to read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Config file; default ./fuzzfarm.config.json if it exists. */
  file?: string;
  cwd?: string;
}

export function loadConfig(opts: LoadConfigOptions = {}): Config {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const merged: Record<string, unknown> = {};
  const file = opts.file ? resolve(cwd, opts.file) : resolve(cwd, "fuzzfarm.config.json");
  if (opts.file && !existsSync(file)) throw new FuzzFarmError("FF_ERR_CONFIG", `config file ${file} does not exist`);
  if (existsSync(file)) {
    try {
      Object.assign(merged, JSON.parse(readFileSync(file, "utf8")));
    } catch (e) {
      throw new FuzzFarmError("FF_ERR_CONFIG", `config file ${file}: ${(e as Error).message}`);
    }
  }
  // Plain names first so that FUZZFARM_* wins when both are set. NAME_FILE
  // names a file holding the value (the Docker / Kubernetes secrets
  // convention), so secrets never have to sit in the environment itself.
  for (const [name, field] of Object.entries(ENV).sort(([a], [b]) => Number(a.startsWith("FUZZFARM_")) - Number(b.startsWith("FUZZFARM_")))) {
    const fromFile = env[`${name}_FILE`];
    if (fromFile) {
      try {
        merged[field] = readFileSync(resolve(cwd, fromFile), "utf8").trim();
      } catch (e) {
        throw new FuzzFarmError("FF_ERR_CONFIG", `${name}_FILE: cannot read ${fromFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    } else if (env[name] !== undefined && env[name] !== "") merged[field] = env[name];
  }
  for (const [k, v] of Object.entries(opts.flags ?? {})) if (v !== undefined) merged[k] = v;
  const r = ConfigSchema.safeParse(merged);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new FuzzFarmError("FF_ERR_CONFIG", `config ${i.path.join(".")}: ${i.message}`);
  }
  const dataDir = resolve(cwd, r.data.dataDir);
  // A local Redis that `fuzzfarm up` started needs the password it stored under the data directory.
  return Object.freeze({ ...r.data, dataDir, redisUrl: withStoredRedisPassword(r.data.redisUrl, dataDir) });
}

/**
 * The farm's job key: `config.jobKey` when set, else the key file
 * `<dataDir>/job-key` (mode 0600), created with a random key when missing.
 * Processes on one machine that share a data directory (the CLI, local
 * workers) so agree without configuration; workers on other hosts need
 * FUZZFARM_JOB_KEY set to the coordinator's key.
 */
export function resolveJobKey(config: Pick<Config, "jobKey" | "dataDir">): string {
  if (config.jobKey) return config.jobKey;
  const file = join(config.dataDir, "job-key");
  const read = () => readFileSync(file, "utf8").trim();
  if (existsSync(file)) return read();
  mkdirSync(config.dataDir, { recursive: true });
  try {
    // "wx": exclusive create, so two processes starting together end up with one key.
    writeFileSync(file, randomBytes(32).toString("base64url") + "\n", { flag: "wx", mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw new FuzzFarmError("FF_ERR_CONFIG", `cannot create the job key file ${file}: ${(e as Error).message}`);
  }
  const key = read();
  if (key.length < 32) throw new FuzzFarmError("FF_ERR_CONFIG", `job key file ${file} holds fewer than 32 characters`);
  return key;
}

/** True for addresses only this machine can reach (the dashboard's reads stay open there). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/**
 * The dashboard's exposure options for a listen address: off loopback, reads
 * need a login, and the bind address is added to the Host allow-list.
 */
export function dashboardExposure(config: Pick<Config, "httpHost" | "allowedHosts">): { allowedHosts: string[]; requireAuthForReads: boolean } {
  const wildcard = config.httpHost === "0.0.0.0" || config.httpHost === "::";
  return {
    allowedHosts: [...config.allowedHosts, ...(wildcard ? [] : [config.httpHost])],
    requireAuthForReads: !isLoopbackHost(config.httpHost),
  };
}

/** Environment variables that carry the farm's secrets (and their NAME_FILE forms). */
export const SECRET_ENV = ["FUZZFARM_REDIS_URL", "REDIS_URL", "FUZZFARM_DATABASE_URL", "DATABASE_URL", "FUZZFARM_JOB_KEY", "FUZZFARM_ADMIN_TOKEN", "FUZZFARM_WORKER_TOKEN", "FUZZFARM_CI_TOKEN"].flatMap((n) => [n, `${n}_FILE`]);

/**
 * Remove the farm's secrets from `env` (a worker calls it on process.env
 * once its config is loaded), so the targets it starts inherit none of
 * them. Returns the names removed.
 */
export function scrubSecretEnv(env: NodeJS.ProcessEnv): string[] {
  const removed = SECRET_ENV.filter((n) => env[n] !== undefined);
  for (const n of removed) delete env[n];
  return removed;
}

/**
 * Files and directories a worker's targets must not read under the "fs"
 * sandbox: the data directory (job key file, Redis password), and every
 * secret file named by a NAME_FILE variable of `env`. Call it before
 * scrubSecretEnv removes those names.
 */
export function secretPaths(config: Pick<Config, "dataDir">, env: NodeJS.ProcessEnv): string[] {
  const files = SECRET_ENV.filter((n) => n.endsWith("_FILE") && env[n]).map((n) => resolve(env[n]!));
  return [...new Set([config.dataDir, ...files])];
}
