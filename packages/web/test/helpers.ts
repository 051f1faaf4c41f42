// Test fixtures: a real PostgreSQL schema (createTestDb), real Redis queues
// under a unique prefix, a temporary data directory, and the app built on
// them. Farm activity is driven the way the coordinator drives it: job rows,
// applyResult, then a published FarmEvent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import type { FastifyInstance } from "fastify";
import { applyResult, createCampaign, insertJobs, upsertTarget, type ClassifiedFinding } from "@fuzzfarm/db";
import { createTestDb, type TestDb } from "@fuzzfarm/db/testing";
import { openQueues, publishEvent, type FarmQueues } from "@fuzzfarm/queue";
import { parseResult, Reproducer, type EngineName, type Finding } from "@fuzzfarm/protocol";
import { buildApp } from "../src/index";

/** The tests' Redis (scripts/test.mjs sets FUZZFARM_REDIS_URL, with a password where setup started Redis itself). */
export const REDIS_URL = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";
export const ADMIN = "admin-token-0123456789abcdef";
export const WORKER = "worker-token-0123456789abcdef";

export interface Farm {
  db: TestDb;
  queues: FarmQueues;
  prefix: string;
  dataDir: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startFarm(): Promise<Farm> {
  const db = await createTestDb();
  const prefix = `fftest-web-${randomBytes(5).toString("hex")}`;
  const queues = openQueues({ url: REDIS_URL, prefix });
  const dataDir = mkdtempSync(join(tmpdir(), "ff-web-"));
  const app = await buildApp({ db, queues, redisUrl: REDIS_URL, prefix, adminToken: ADMIN, workerToken: WORKER, dataDir, sseKeepAliveMs: 1000 });
  return {
    db,
    queues,
    prefix,
    dataDir,
    app,
    async close() {
      await app.close();
      const keys = await queues.connection.keys(`${prefix}:*`);
      if (keys.length) await queues.connection.del(...keys);
      await queues.close();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const auth = { authorization: `Bearer ${ADMIN}` };

export async function seedCampaign(db: TestDb, o: { name?: string; engine?: EngineName; path?: string; version?: string } = {}) {
  const engine = o.engine ?? "input";
  const t = await upsertTarget(db, { name: o.name ?? `t-${randomBytes(4).toString("hex")}`, engine, path: o.path ?? "/srv/targets/t.js", version: o.version ?? "v1" });
  const c = await createCampaign(db, { targetId: t.id, engine, config: {}, deadline: new Date(Date.now() + 3600_000) });
  return { target: t, campaign: c };
}

export interface CrashSpec {
  message: string;
  signature: string;
  title?: string;
  stack?: string;
  kind?: "uncaught" | "rejection" | "exit" | "signal" | "oom";
  frames?: unknown[];
  artifact?: Partial<Finding["reproducer"]>;
  detail?: Record<string, unknown>;
  input?: string;
}

let seq = 0;

/** Apply one job result to the campaign, as the coordinator does, and publish the result event. */
export async function runJob(
  farm: Pick<Farm, "db" | "queues" | "prefix">,
  c: { target: { id: string; version: string }; campaign: { id: string; engine: string } },
  o: { execs?: number; features?: string[]; crashes?: CrashSpec[]; coverage?: Record<string, unknown>; strategyYield?: Record<string, { execs: number; newFeatures: number; findings: number }>; publish?: boolean; recordReproCommand?: boolean } = {},
) {
  const jobId = `${c.campaign.id}-${seq++}`;
  await insertJobs(farm.db, [{ id: jobId, campaignId: c.campaign.id, kind: "fuzz", payload: {} }]);
  const findings: Finding[] = (o.crashes ?? []).map((x) => ({
    kind: "crash",
    crashKind: x.kind ?? "uncaught",
    message: x.message,
    stack: x.stack ?? `${x.message}\n    at f (/srv/targets/t.js:1:1)`,
    reproducer: Reproducer.parse({ engine: c.campaign.engine, options: {}, input: Buffer.from(x.input ?? "FUZZ").toString("base64"), ...x.artifact }),
    detail: x.detail ?? {},
  }));
  const now = new Date().toISOString();
  const result = parseResult({
    jobId, campaignId: c.campaign.id, workerId: "w-test", engine: c.campaign.engine, startedAt: now, finishedAt: now,
    execs: o.execs ?? 1000, busyMs: 100, features: o.features ?? [], featureTotal: 100, findings,
    ...(o.coverage ? { coverage: o.coverage } : {}), strategyYield: o.strategyYield ?? {},
  });
  const classified: ClassifiedFinding[] = findings.map((f, i) => ({
    finding: f, kind: f.kind === "crash" ? f.crashKind : f.kind, signature: o.crashes![i]!.signature, title: o.crashes![i]!.title ?? f.message,
    frames: o.crashes![i]!.frames ?? [], triage: {}, hits: 1,
  }));
  const summary = await applyResult(farm.db, result, { targetId: c.target.id, targetVersion: c.target.version, classified, ...(o.recordReproCommand === false ? {} : { reproCommand: (x: ClassifiedFinding) => `npx fuzzfarm repro --signature '${x.signature}'` }) });
  if (o.publish !== false)
    await publishEvent(farm.queues.connection, farm.prefix, { type: "result", campaignId: c.campaign.id, jobId, execs: result.execs, newCoverage: summary.newCoverage, newNovelty: summary.newNovelty, newBuckets: summary.newBuckets });
  return { jobId, summary };
}

/** Stream `mb` MiB to `path` from one reused chunk (with a Content-Length, or chunked); resolves with the status (or the socket error) once the server answers. */
export function sendBig(port: number, path: string, mb: number, headers: Record<string, string> = {}, o: { chunked?: boolean } = {}): Promise<{ status: number | string; sentBytes: number }> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    let done = false;
    const req = request({ host: "127.0.0.1", port, path, method: "POST", headers: { "content-type": "application/json", ...(o.chunked ? {} : { "content-length": String(mb * 1024 * 1024) }), ...headers } });
    const finish = (status: number | string) => {
      if (done) return;
      done = true;
      resolve({ status, sentBytes: sent });
      req.destroy();
    };
    req.on("response", (res) => {
      res.resume();
      finish(res.statusCode ?? 0);
    });
    req.on("error", (e) => finish((e as NodeJS.ErrnoException).code ?? "error"));
    const pump = () => {
      while (!done && sent < mb * 1024 * 1024) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!done) req.end();
    };
    pump();
  });
}
