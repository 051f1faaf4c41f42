// `fuzzfarm ci --farm URL`: the campaign runs on a running farm, driven
// through its dashboard's CI API (packages/web/src/routes/ci) with the CI
// token (or the admin token) as a bearer token:
//   POST /api/ci/campaigns              start it (the farm checks the target: under its roots, present)
//   GET  /api/ci/campaigns/:id          poll status and progress until it ends
//   GET  /api/ci/campaigns/:id/buckets  the target's known buckets with their reproducers
// The farm reads the target at the path this job sees it: the CI job's
// checkout must be where the farm's workers read it (same host or a shared
// volume at the same path, under the farm's FUZZFARM_TARGET_ROOTS). Every
// failure is one line: unreachable (FF_ERR_FARM_UNREACHABLE), the farm's
// own code and message (401, unknown target, ...), or a failed campaign.
import { ERROR_CODES, FuzzFarmError, type ErrorCode } from "@fuzzfarm/protocol";
import { progressLine } from "../commands/summary";
import type { CiCampaignRunner } from "./campaign";
import type { CandidateBucket } from "./replay";

export interface FarmClientOptions {
  /** The farm dashboard's base URL, e.g. https://farm.example:8377. */
  url: string;
  /** CI token or admin token of the farm. */
  token: string;
  /** Status polling period, ms. Default 1000. */
  pollMs?: number;
  /** How long a campaign may stay running past its deadline before the client gives up, ms. Default 120 000. */
  overdueMs?: number;
  /** Per-request timeout, ms. Default 30 000. */
  requestTimeoutMs?: number;
}

/** The farm's view of a CI campaign (GET /api/ci/campaigns/:id). */
interface FarmCampaign {
  id: string;
  status: string;
  reason?: string;
  deadline: string;
  seconds: number;
  executions: number;
  execsPerSec: number;
  covered: number;
  coverageTotal: number;
  novelty: number;
  corpusSize: number;
  buckets: number;
}

/** Parse and normalize --farm: an http(s) URL without a trailing slash. */
export function farmUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new FuzzFarmError("FF_ERR_CONFIG", `--farm ${raw} is not a URL (e.g. http://farm-host:8377)`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new FuzzFarmError("FF_ERR_CONFIG", `--farm ${raw}: only http:// and https:// URLs`);
  if (u.username || u.password) throw new FuzzFarmError("FF_ERR_CONFIG", "--farm must not carry credentials: pass the token with --token or FUZZFARM_CI_TOKEN");
  return u.toString().replace(/\/+$/, "");
}

/** One JSON request to the farm; every failure becomes a one-line FuzzFarmError. */
async function call<T>(o: FarmClientOptions, method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${o.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${o.token}`, accept: "application/json", ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(o.requestTimeoutMs ?? 30_000),
      redirect: "error",
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = (e as Error).name === "TimeoutError" ? "no answer in time" : (cause?.code ?? cause?.message ?? (e as Error).message);
    throw new FuzzFarmError("FF_ERR_FARM_UNREACHABLE", `farm ${o.url} unreachable: ${why}`);
  }
  const text = await res.text().catch(() => "");
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (res.ok && json !== undefined) return json as T;
  const e = (json as { error?: { code?: string; message?: string } } | undefined)?.error;
  if (e?.code && e.code in ERROR_CODES) throw new FuzzFarmError(e.code as ErrorCode, `farm ${o.url}: ${String(e.message ?? res.statusText).split("\n")[0]}`);
  if (res.status === 404) throw new FuzzFarmError("FF_ERR_FARM_UNREACHABLE", `farm ${o.url}: no CI API at ${path} (HTTP 404; is this a FuzzFarm dashboard?)`);
  throw new FuzzFarmError("FF_ERR_FARM_UNREACHABLE", `farm ${o.url}: ${method} ${path} answered HTTP ${res.status}${json === undefined ? " without JSON" : ""}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function farmCampaignRunner(o: FarmClientOptions): CiCampaignRunner {
  const pollMs = o.pollMs ?? 1000;
  return {
    reproduceCommand: (id) => `fuzzfarm repro ${id} (on the farm; ${o.url}/buckets/${id})`,
    async run(spec, hooks) {
      const started = await call<{ id: string }>(o, "POST", "/api/ci/campaigns", {
        target: { path: spec.target.path, name: spec.target.name, version: spec.target.version },
        engine: spec.target.engine,
        options: spec.options,
        seconds: spec.seconds,
        jobSeconds: spec.jobSeconds,
      });
      const id = started.id;
      hooks.started(id);
      const path = `/api/ci/campaigns/${encodeURIComponent(id)}`;
      let c: FarmCampaign;
      let lastProgress = Date.now();
      let failures = 0;
      for (;;) {
        await sleep(pollMs);
        try {
          c = await call<FarmCampaign>(o, "GET", path);
          failures = 0;
        } catch (e) {
          // A farm restarting mid-campaign is a blip; a farm gone for ~10 polls is an error.
          if ((e as FuzzFarmError).code !== "FF_ERR_FARM_UNREACHABLE" || ++failures >= 10) throw e;
          continue;
        }
        if (c.status !== "running") break;
        if (Date.now() - lastProgress >= 2000) {
          lastProgress = Date.now();
          hooks.progress(progressLine(facts(c)));
        }
        if (Date.now() > Date.parse(c.deadline) + (o.overdueMs ?? 120_000))
          throw new FuzzFarmError("FF_ERR_CAMPAIGN_FAILED", `campaign ${id} is still running ${Math.round((Date.now() - Date.parse(c.deadline)) / 1000)}s past its deadline: is the farm's coordinator running?`);
      }
      hooks.log(progressLine(facts(c)));
      if (c.status === "failed") throw new FuzzFarmError("FF_ERR_CAMPAIGN_FAILED", `campaign ${id} failed: ${c.reason ?? "no reason given"}`);
      const { items } = await call<{ items: CandidateBucket[] }>(o, "GET", `${path}/buckets`);
      return { campaignId: id, seconds: c.seconds, executions: c.executions, buckets: c.buckets, candidates: items };
    },
    async close() {},
  };
}

function facts(c: FarmCampaign) {
  return {
    seconds: c.seconds,
    executions: c.executions,
    execsPerSecond: Math.round(c.execsPerSec),
    coverage: { covered: c.covered, total: c.coverageTotal, percent: c.coverageTotal ? Math.round((1000 * c.covered) / c.coverageTotal) / 10 : null },
    novelty: c.novelty,
    corpusSize: c.corpusSize,
    buckets: c.buckets,
  };
}
