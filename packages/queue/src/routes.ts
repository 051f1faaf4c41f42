// Jobs routed by engine capability. A wasm job that names engine
// configurations beyond this Node's own tiers (Deno, Bun, a command engine
// of the worker's configuration) can run only on a worker that offers them,
// so it is not queued on `jobs-wasm` (which every wasm worker consumes) but
// on a queue named after what it needs, `jobs-wasm@deno` or
// `jobs-wasm@bun+deno` (`maintenance-wasm@...` for its replays), that only
// workers offering all of it consume. The queues a coordinator has routed
// jobs to are listed in the set `<prefix>:jobs-routes` (inside the worker
// ACL's `jobs-*` keys): workers read it with their heartbeat and start
// consuming each routed queue they can serve, so a new route waits for at
// most one heartbeat period. Routes are plain BullMQ queues: locks, retries,
// stalled-job recovery and the results path are the usual ones.
import type { Redis } from "ioredis";
import { FuzzFarmError, type EngineName } from "@fuzzfarm/protocol";
import { readHeartbeats } from "./heartbeats";

/** This Node's V8 tiers: every wasm worker offers them, so jobs naming only these need no route. */
const EVERYWHERE = new Set(["default", "liftoff", "turbofan"]);

/** The set of routed queue names under `prefix`. */
export const routesKey = (prefix: string) => `${prefix}:jobs-routes`;

const engineName = (id: string) => id.split(":")[0]!;

/** What a set of engine configuration ids needs beyond every worker: sorted base names joined by "+", or null. */
function routeOfIds(ids: readonly unknown[]): string | null {
  const names = [...new Set(ids.filter((i): i is string => typeof i === "string" && i.length > 0).map(engineName))].filter((n) => !EVERYWHERE.has(n)).sort();
  return names.length ? names.join("+") : null;
}

/** The route of a job: what its engine configurations need (wasm `options.engines`), or null for the engine's own queue. */
export function jobRoute(job: { engine: EngineName; options?: unknown }): string | null {
  if (job.engine !== "wasm") return null;
  const engines = (job.options as { engines?: unknown } | undefined)?.engines;
  return Array.isArray(engines) ? routeOfIds(engines) : null;
}

/** Whether a worker offering `offered` (its heartbeat's `capabilities.wasm`) can run jobs of `route`. */
export function routeServedBy(route: string, offered: readonly string[]): boolean {
  const have = new Set(offered.map(engineName));
  return route.split("+").every((n) => have.has(n));
}

/** The parts of a job queue name: `jobs-wasm@deno` -> wasm, fuzz, "deno". Null for other names. */
export function parseJobQueueName(name: string): { engine: string; kind: "fuzz" | "maintenance"; route: string | null } | null {
  const m = /^(jobs|maintenance)-([a-z]+)(?:@(.+))?$/.exec(name);
  return m ? { engine: m[2]!, kind: m[1] === "jobs" ? "fuzz" : "maintenance", route: m[3] ?? null } : null;
}

/** Record that jobs were routed to queue `name`, so that workers find it. */
export async function addRoute(redis: Redis, prefix: string, name: string): Promise<void> {
  await redis.sadd(routesKey(prefix), name);
}

/** The routed queue names workers should look at. */
export async function listRoutes(redis: Redis, prefix: string): Promise<string[]> {
  return redis.smembers(routesKey(prefix));
}

/**
 * Refuse a campaign whose jobs no live worker could run: a wasm campaign naming engine configurations (its
 * `engines`, plus each `engineMatrix` entry in turn, as the planner hands them out) that no worker heartbeat of the
 * last `ttlMs` offers. Throws FF_ERR_ENGINE_UNAVAILABLE with one line; other campaigns pass.
 */
export async function assertEngineServed(redis: Redis, prefix: string, engine: EngineName, options: unknown, ttlMs = 15_000): Promise<void> {
  if (engine !== "wasm") return;
  const o = (options ?? {}) as { engines?: unknown; engineMatrix?: unknown };
  const engines = Array.isArray(o.engines) ? o.engines : [];
  const matrix = Array.isArray(o.engineMatrix) && o.engineMatrix.length ? o.engineMatrix : [null];
  const routes = [...new Set(matrix.map((m) => routeOfIds(m === null ? engines : [...engines, m])).filter((r): r is string => r !== null))];
  if (!routes.length) return;
  const offers = (await readHeartbeats(redis, prefix, ttlMs)).filter((b) => b.engines.includes("wasm")).map((b) => b.capabilities?.wasm ?? []);
  for (const r of routes) {
    if (offers.some((o) => routeServedBy(r, o))) continue;
    const seen = [...new Set(offers.flat().map(engineName))].sort();
    throw new FuzzFarmError(
      "FF_ERR_ENGINE_UNAVAILABLE",
      `no live worker offers wasm engine ${r.split("+").join(" and ")} (live wasm workers offer: ${seen.length ? seen.join(", ") : "none"}); start a worker configured with it or drop it from the campaign's engines`,
    );
  }
}
