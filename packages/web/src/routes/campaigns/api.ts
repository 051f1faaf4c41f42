// JSON API of campaigns: list, summary, time series, per-strategy yield, job throughput.
import type { FastifyInstance } from "fastify";
import { assertCampaign, campaignSeries, campaignSummary, campaignThroughput, listCampaignSummaries } from "@fuzzfarm/db";
import { IdParams, PageQuery, pageOf, readErrors } from "../../schemas";
import { CAMPAIGN_STATUSES } from "@fuzzfarm/protocol";

const dt = { type: "string", format: "date-time" } as const;

export default async function campaignApi(app: FastifyInstance) {
  const db = app.ff.db;

  app.get("/api/campaigns", {
    schema: {
      tags: ["campaigns"],
      summary: "Campaigns, newest first, paginated",
      querystring: { type: "object", properties: { status: { type: "string", enum: [...CAMPAIGN_STATUSES] }, ...PageQuery } },
      response: { 200: pageOf({ $ref: "CampaignSummary#" }), ...readErrors },
    },
    handler: async (req) => {
      const q = req.query as { status?: string; limit: number; offset: number };
      return listCampaignSummaries(db, q);
    },
  });

  app.get("/api/campaigns/:id", {
    schema: {
      tags: ["campaigns"],
      summary: "One campaign",
      params: IdParams,
      response: {
        200: { allOf: [{ $ref: "CampaignSummary#" }, { type: "object", properties: { targetPath: { type: "string" }, busyMs: { type: "number" }, config: { type: "object", additionalProperties: true } } }] },
        ...readErrors,
      },
    },
    handler: async (req) => campaignSummary(db, (req.params as { id: string }).id),
  });

  app.get("/api/campaigns/:id/series", {
    schema: {
      tags: ["campaigns"],
      summary: "Coverage, novelty, corpus, execs and buckets over time (downsampled)",
      params: IdParams,
      querystring: { type: "object", properties: { points: { type: "integer", minimum: 2, maximum: 2000, default: 300 } } },
      response: {
        200: {
          type: "object",
          properties: {
            points: {
              type: "array",
              items: {
                type: "object",
                properties: { at: dt, execs: { type: "number" }, covered: { type: "integer" }, coverageTotal: { type: "integer" }, novelty: { type: "integer" }, corpusSize: { type: "integer" }, buckets: { type: "integer" } },
              },
            },
          },
        },
        ...readErrors,
      },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      await assertCampaign(db, id);
      return { points: await campaignSeries(db, id, (req.query as { points: number }).points) };
    },
  });

  app.get("/api/campaigns/:id/strategies", {
    schema: {
      tags: ["campaigns"],
      summary: "Per-strategy yield: executions, new features and findings of each perturbation strategy",
      params: IdParams,
      response: {
        200: {
          type: "object",
          properties: {
            items: {
              type: "array",
              items: { type: "object", properties: { strategy: { type: "string" }, jobs: { type: "integer" }, execs: { type: "number" }, newFeatures: { type: "number" }, findings: { type: "number" } } },
            },
          },
        },
        ...readErrors,
      },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      await assertCampaign(db, id);
      return { items: await app.ff.strategyYield.get(id) };
    },
  });

  app.get("/api/campaigns/:id/throughput", {
    schema: {
      tags: ["campaigns"],
      summary: "Jobs finished per time bin and job counts per status",
      params: IdParams,
      querystring: { type: "object", properties: { bins: { type: "integer", minimum: 1, maximum: 500, default: 60 } } },
      response: {
        200: {
          type: "object",
          properties: {
            byStatus: { type: "object", additionalProperties: { type: "integer" } },
            binMs: { type: "integer" },
            bins: { type: "array", items: { type: "object", properties: { start: dt, jobs: { type: "integer" }, execs: { type: "number" }, meanLatencyMs: { type: "number" } } } },
          },
        },
        ...readErrors,
      },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      await assertCampaign(db, id);
      return campaignThroughput(db, id, (req.query as { bins: number }).bins);
    },
  });
}
