// POST /api/github/webhook: GitHub App mode. GitHub signs each delivery
// (X-Hub-Signature-256 = HMAC-SHA256 of the raw body under the webhook
// secret); the signature is checked on the raw bytes before anything is
// parsed or started. A delivery id (X-GitHub-Delivery) is claimed in Redis
// with SET NX + TTL after the signature passed: a second delivery with the
// same id is a replay and gets 401, so one delivery starts one campaign.
// Without `github` options the route answers 404.
import type { FastifyInstance } from "fastify";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { checkRequestOf, verifyWebhookSignature } from "@fuzzfarm/github";

/** GitHub caps webhook payloads at 25 MB. */
const MAX_PAYLOAD = 25 * 1024 * 1024;

export default async function githubWebhook(app: FastifyInstance) {
  const gh = app.ff.opts.github;
  // Encapsulated: only this plugin's routes get the raw body as a string.
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit: MAX_PAYLOAD }, (_req, body, done) => done(null, body));

  app.post("/api/github/webhook", {
    bodyLimit: MAX_PAYLOAD,
    config: { auth: "public" },
    schema: {
      tags: ["github"],
      summary: "GitHub App webhook: pull_request opened/synchronize/reopened and check_suite/check_run rerequested start a campaign reported as a check run",
      response: {
        202: { type: "object", properties: { started: { type: "boolean" }, campaignId: { type: "string" }, checkRunId: { type: "number" }, reason: { type: "string" } } },
      },
    },
    handler: async (req, reply) => {
      if (!gh) throw new FuzzFarmError("FF_ERR_NOT_FOUND", "GitHub App mode is not configured");
      const raw = typeof req.body === "string" ? req.body : "";
      const signature = req.headers["x-hub-signature-256"];
      if (!(await verifyWebhookSignature(gh.webhookSecret, raw, typeof signature === "string" ? signature : undefined)))
        throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", "missing or invalid X-Hub-Signature-256");
      const delivery = req.headers["x-github-delivery"];
      const event = req.headers["x-github-event"];
      if (typeof delivery !== "string" || !/^[A-Za-z0-9-]{1,100}$/.test(delivery) || typeof event !== "string")
        throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", "missing X-GitHub-Delivery or X-GitHub-Event");
      const key = `${app.ff.prefix}:github:delivery:${delivery}`;
      const claimed = await app.ff.redis.set(key, String(Date.now()), "EX", gh.deliveryTtlSeconds ?? 7 * 24 * 3600, "NX");
      if (claimed !== "OK") throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", `delivery ${delivery} was already received (replay)`);
      let payload: unknown;
      try {
        payload = JSON.parse(raw);
      } catch {
        throw new FuzzFarmError("FF_ERR_VALIDATION", "webhook body is not JSON");
      }
      const request = checkRequestOf(event, payload);
      if (!request) return reply.code(202).send({ started: false, reason: `${event} ${(payload as { action?: string }).action ?? ""} starts nothing`.trim() });
      try {
        const started = await gh.onCheckRequest(request);
        req.log.info({ delivery, event, campaignId: started.campaignId }, "github webhook started a campaign");
        return reply.code(202).send({ started: true, campaignId: started.campaignId, checkRunId: started.checkRunId });
      } catch (e) {
        // Nothing started: forget the delivery so GitHub's redelivery can try again.
        await app.ff.redis.del(key).catch((err) => req.log.warn({ err, delivery }, `delivery ${delivery} not forgotten (its redelivery will be refused as a replay): ${(err as Error).message}`));
        throw e;
      }
    },
  });
}
