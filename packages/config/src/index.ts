// @fuzzfarm/config: the apps' configuration, parsed once, typed and frozen.
// Precedence: defaults < file (fuzzfarm.config.json) < FUZZFARM_* env < CLI flags.
// Packages never read process.env: apps call loadConfig() and pass values down.
import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { z } from "zod";
import { FuzzFarmError } from "@fuzzfarm/protocol";

export const ConfigSchema = z.object({
  /** Redis URL of the farm's queues. Default redis://127.0.0.1:6379 (env FUZZFARM_REDIS_URL or REDIS_URL). */
  redisUrl: z.string().regex(/^rediss?:\/\//, "must be a redis:// URL").default("redis://127.0.0.1:6379"),
  /** PostgreSQL URL. Default postgresql://postgres@127.0.0.1:5432/fuzzfarm (env FUZZFARM_DATABASE_URL or DATABASE_URL). */
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL").default("postgresql://postgres@127.0.0.1:5432/fuzzfarm"),
  /** Key prefix of the BullMQ queues; farms sharing a Redis use different prefixes. Default "fuzzfarm". */
  queuePrefix: z.string().regex(/^[A-Za-z0-9_.-]+$/).default("fuzzfarm"),
  /** Dashboard / API listen address. Default 127.0.0.1. */
  httpHost: z.string().default("127.0.0.1"),
  /** Dashboard / API port. Default 8377. */
  httpPort: z.coerce.number().int().min(0).max(65535).default(8377),
  /** Local workers started by `up` / `fuzz`. Default: one per core. */
  workers: z.coerce.number().int().min(0).max(256).default(availableParallelism()),
  /** Where `up` keeps local service data and artifacts. Default ./.fuzzfarm */
  dataDir: z.string().default(".fuzzfarm"),
  /** Token for API writes (triage actions). Default: generated at start and printed by `up`. */
  adminToken: z.string().min(16).optional(),
  /** Token workers present (reserved for HTTP-reporting workers). */
  workerToken: z.string().min(16).optional(),
  /** Seconds of work per fuzz job (big enough that queue + DB overhead stays small). Default 5. */
  jobSeconds: z.coerce.number().min(0.2).max(3600).default(5),
  /** BullMQ lock duration of a job, ms; a killed worker's job runs again elsewhere after it. Default 30000. */
  lockMs: z.coerce.number().int().min(1000).default(30_000),
  /** Engines a worker loads (comma-separated in env). Default all: input,node,wasm. */
  engines: z
    .preprocess((v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter(Boolean) : v), z.array(z.enum(["input", "node", "wasm"])).min(1))
    .default(["input", "node", "wasm"]),
  /** Skip the engines' start-up probes in workers (tests starting many workers). Default false. */
  skipSelfTest: z.preprocess((v) => (typeof v === "string" ? v === "1" || v === "true" : v), z.boolean()).default(false),
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
  FUZZFARM_WORKERS: "workers",
  FUZZFARM_DATA_DIR: "dataDir",
  FUZZFARM_ADMIN_TOKEN: "adminToken",
  FUZZFARM_WORKER_TOKEN: "workerToken",
  FUZZFARM_JOB_SECONDS: "jobSeconds",
  FUZZFARM_LOCK_MS: "lockMs",
  FUZZFARM_ENGINES: "engines",
  FUZZFARM_SKIP_SELFTEST: "skipSelfTest",
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
  // Plain names first so that FUZZFARM_* wins when both are set.
  for (const [name, field] of Object.entries(ENV).sort(([a], [b]) => Number(a.startsWith("FUZZFARM_")) - Number(b.startsWith("FUZZFARM_")))) {
    if (env[name] !== undefined && env[name] !== "") merged[field] = env[name];
  }
  for (const [k, v] of Object.entries(opts.flags ?? {})) if (v !== undefined) merged[k] = v;
  const r = ConfigSchema.safeParse(merged);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new FuzzFarmError("FF_ERR_CONFIG", `config ${i.path.join(".")}: ${i.message}`);
  }
  return Object.freeze({ ...r.data, dataDir: resolve(cwd, r.data.dataDir) });
}
