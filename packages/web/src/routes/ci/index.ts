// The CI API: what `fuzzfarm ci --farm URL` drives instead of a local
// coordinator. Start a time-boxed campaign for a target, poll it, then read
// the buckets the farm knows for that target with their first report and
// reproducer (the CLI replays them on the pull request's head and base and
// classifies them, as in local mode).
//
// Auth: the CI token or the admin token (bearer), checked in onRequest
// before any body is read. A target must be an absolute path under the
// farm's target roots (the workers' rule, shared through protocol's
// isUnderTargetRoots) and must exist on the farm: the head's code reaches the
// farm because the CI job checks it out where the farm reads it (a
// self-hosted runner on the farm host, or a shared volume mounted at the
// same path); the API never receives code.
import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { FastifyInstance } from "fastify";
import { FuzzFarmError, isUnderTargetRoots } from "@fuzzfarm/protocol";
import { campaignOutcome, campaignSummary, ciCandidates } from "@fuzzfarm/db";
import type { CiApiOptions, CiCampaignRequest } from "../../options";
import { IdParams, writeErrors } from "../../schemas";

const err = { $ref: "ErrorResponse#" } as const;
const ciErrors = { 400: err, 401: err, 403: err, 404: err, 500: err, 503: err } as const;
const dt = { type: "string", format: "date-time" } as const;

const CampaignBody = {
  type: "object",
  required: ["target", "engine", "seconds"],
  additionalProperties: false,
  properties: {
    target: {
      type: "object",
      required: ["path"],
      additionalProperties: false,
      properties: {
        path: { type: "string", minLength: 1, maxLength: 4096, description: "absolute path of the target as the farm's workers read it" },
        name: { type: "string", minLength: 1, maxLength: 200 },
        version: { type: "string", maxLength: 200 },
      },
    },
    engine: { type: "string", enum: ["input", "node", "wasm"] },
    options: { type: "object", additionalProperties: true, maxProperties: 100 },
    seconds: { type: "number", minimum: 1, maximum: 30 * 86_400 },
    jobSeconds: { type: "number", minimum: 0.2, maximum: 3600 },
  },
} as const;

const CiCampaign = {
  type: "object",
  properties: {
    id: { type: "string" },
    status: { type: "string", description: "running | completed | stopped | failed" },
    reason: { type: "string", description: "why a failed campaign failed" },
    targetPath: { type: "string" },
    engine: { type: "string" },
    startedAt: dt,
    deadline: dt,
    endedAt: { type: ["string", "null"], format: "date-time" },
    seconds: { type: "number", description: "fuzzing time so far (until the end once ended)" },
    executions: { type: "number" },
    execsPerSec: { type: "number" },
    covered: { type: "integer" },
    coverageTotal: { type: "integer" },
    novelty: { type: "integer" },
    corpusSize: { type: "integer" },
    buckets: { type: "integer", description: "buckets this campaign hit" },
    jobsDone: { type: "integer" },
  },
} as const;

const Candidate = {
  type: "object",
  properties: {
    id: { type: "string" },
    kind: { type: "string" },
    title: { type: "string" },
    status: { type: "string" },
    reproduction: { type: "object", properties: { runs: { type: "integer" }, hits: { type: "integer" }, label: { type: "string" } } },
    report: { type: "object", properties: { message: { type: "string" }, stack: { type: "string" }, artifact: { type: "object", additionalProperties: true } } },
  },
} as const;

function enabled(ci: CiApiOptions | undefined): CiApiOptions {
  if (!ci) throw new FuzzFarmError("FF_ERR_NOT_FOUND", "the CI API is not enabled on this farm");
  return ci;
}

/** The target rules, in an order that tells nothing about files outside the roots. */
function checkTarget(ci: CiApiOptions, path: string): void {
  if (!isAbsolute(path)) throw new FuzzFarmError("FF_ERR_VALIDATION", `target ${path} must be an absolute path`);
  if (!ci.targetRoots.length) throw new FuzzFarmError("FF_ERR_FORBIDDEN", "this farm has no target roots (FUZZFARM_TARGET_ROOTS): the CI API starts no campaign");
  if (!isUnderTargetRoots(path, ci.targetRoots)) throw new FuzzFarmError("FF_ERR_FORBIDDEN", `target ${path} is outside the farm's target roots (${ci.targetRoots.join(", ")})`);
  if (!existsSync(path) || !statSync(path).isFile()) throw new FuzzFarmError("FF_ERR_TARGET_NOT_FOUND", `unknown target: ${path} does not exist on the farm`);
}

/**
 * Engine options that make workers run commands or files other than the target: the operator's to set, never a CI
 * token's (a worker runs a listed optimizer under default settings; engines name the operator's command engines).
 */
const COMMAND_OPTIONS = ["optimizer", "optimizerCmd", "engines", "engineMatrix"] as const;

function checkOptions(options: Record<string, unknown> | undefined): void {
  for (const k of COMMAND_OPTIONS) {
    const v = options?.[k];
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0))
      throw new FuzzFarmError("FF_ERR_FORBIDDEN", `option ${k} runs commands on the farm's workers: a CI campaign may not set it (the farm's operator configures optimizers and engines)`);
  }
}

export default async function ciApi(app: FastifyInstance) {
  const db = app.ff.db;
  const ci = app.ff.opts.ci;

  app.post("/api/ci/campaigns", {
    bodyLimit: 64 * 1024,
    config: { auth: "ci" },
    schema: {
      tags: ["ci"],
      summary: "Start a time-boxed campaign for a target (fuzzfarm ci --farm); CI or admin token",
      body: CampaignBody,
      response: { 201: { type: "object", properties: { id: { type: "string" }, status: { type: "string" } } }, ...writeErrors },
    },
    handler: async (req, reply) => {
      const c = enabled(ci);
      const b = req.body as { target: { path: string; name?: string; version?: string }; engine: CiCampaignRequest["engine"]; options?: Record<string, unknown>; seconds: number; jobSeconds?: number };
      checkTarget(c, b.target.path);
      checkOptions(b.options);
      const max = c.maxSeconds ?? 86_400;
      if (b.seconds > max) throw new FuzzFarmError("FF_ERR_VALIDATION", `seconds ${b.seconds} exceeds this farm's CI limit of ${max}`);
      const name = b.target.name ?? b.target.path.split(/[\\/]/).pop()!;
      const started = await c.startCampaign({ target: { name, path: b.target.path, version: b.target.version }, engine: b.engine, options: b.options ?? {}, seconds: b.seconds, jobSeconds: b.jobSeconds });
      req.log.info({ campaignId: started.id, target: b.target.path, by: req.auth.kind }, "ci campaign started");
      return reply.code(201).send({ id: started.id, status: "running" });
    },
  });

  app.get("/api/ci/campaigns/:id", {
    config: { auth: "ci" },
    schema: { tags: ["ci"], summary: "A CI campaign's status and progress; CI or admin token", params: IdParams, response: { 200: CiCampaign, ...ciErrors } },
    handler: async (req) => {
      enabled(ci);
      const s = await campaignSummary(db, (req.params as { id: string }).id);
      const reason = s.status === "failed" ? (await campaignOutcome(db, s.id)).reason : undefined;
      return {
        id: s.id,
        status: s.status,
        ...(reason ? { reason } : {}),
        targetPath: s.targetPath,
        engine: s.engine,
        startedAt: s.startedAt,
        deadline: s.deadline,
        endedAt: s.endedAt,
        seconds: Math.round(((s.endedAt ?? new Date()).getTime() - s.startedAt.getTime()) / 100) / 10,
        executions: s.execs,
        execsPerSec: s.execsPerSec,
        covered: s.covered,
        coverageTotal: s.coverageTotal,
        novelty: s.novelty,
        corpusSize: s.corpusSize,
        buckets: s.buckets,
        jobsDone: s.jobsDone,
      };
    },
  });

  app.get("/api/ci/campaigns/:id/buckets", {
    config: { auth: "ci" },
    schema: {
      tags: ["ci"],
      summary: "Every bucket the farm knows for the campaign's target (most recently seen first, at most 100), with reproduction counts and the first report's reproducer; CI or admin token",
      params: IdParams,
      response: { 200: { type: "object", properties: { campaignId: { type: "string" }, targetPath: { type: "string" }, items: { type: "array", items: Candidate } } }, ...ciErrors },
    },
    handler: async (req) => {
      enabled(ci);
      const { id } = req.params as { id: string };
      const camp = await db.prisma.campaign.findUnique({ where: { id }, select: { target: { select: { path: true } } } });
      if (!camp) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no campaign ${id}`);
      return { campaignId: id, targetPath: camp.target.path, items: await ciCandidates(db, camp.target.path) };
    },
  });
}
