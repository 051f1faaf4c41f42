// POST /api/github/webhook: GitHub App mode. GitHub signs each delivery
// (X-Hub-Signature-256 = HMAC-SHA256 of the raw body under the webhook
// secret). Everything that can be refused without the body is refused in
// onRequest, before a byte of it is read: App mode not configured (404), a
// Content-Length over the cap (413), a missing or malformed signature,
// delivery id or event header (401). The body is then read up to the cap (a
// streamed body that passes it: 413) and its signature checked on those raw
// bytes before anything is parsed or started. A replay is refused (401) when
// either its delivery id (X-GitHub-Delivery) or its body's SHA-256 was seen
// within the TTL (SET NX in Redis): GitHub signs no timestamp and the
// delivery id is outside the signature, so the same signed body under a new
// id is a replay too. One delivery starts one campaign.
import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { checkRequestOf, verifyWebhookSignature } from "@fuzzfarm/github";

/** Default cap of a webhook body (GitHub's own cap is 25 MB; the events we act on are tens of kB). */
export const DEFAULT_WEBHOOK_MAX_BYTES = 1024 * 1024;

const header = (v: string | string[] | undefined) => (typeof v === "string" ? v : undefined);

export default async function githubWebhook(app: FastifyInstance) {
  const gh = app.ff.opts.github;
  const maxBytes = gh?.maxBodyBytes ?? DEFAULT_WEBHOOK_MAX_BYTES;
  // Encapsulated: only this plugin's routes get the raw body as a string.
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit: maxBytes }, (_req, body, done) => done(null, body));

  app.post("/api/github/webhook", {
    bodyLimit: maxBytes,
    config: { auth: "public" },
    schema: {
      tags: ["github"],
      summary: "GitHub App webhook: pull_request opened/synchronize/reopened and check_suite/check_run rerequested start a campaign reported as a check run",
      response: {
        202: { type: "object", properties: { started: { type: "boolean" }, campaignId: { type: "string" }, checkRunId: { type: "number" }, reason: { type: "string" } } },
      },
    },
    // Runs before the body is read: a refusal here costs no body bytes.
    onRequest: async (req) => {
      if (!gh) throw new FuzzFarmError("FF_ERR_NOT_FOUND", "GitHub App mode is not configured");
      const length = Number(req.headers["content-length"] ?? 0);
      if (length > maxBytes) throw new FuzzFarmError("FF_ERR_ARTIFACT_TOO_LARGE", `webhook body of ${length} bytes is over the ${maxBytes}-byte limit`);
      if (!/^sha256=[0-9a-f]{64}$/.test(header(req.headers["x-hub-signature-256"]) ?? "")) throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", "missing or invalid X-Hub-Signature-256");
      if (!/^[A-Za-z0-9-]{1,100}$/.test(header(req.headers["x-github-delivery"]) ?? "") || !/^[a-z_]{1,64}$/.test(header(req.headers["x-github-event"]) ?? ""))
        throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", "missing X-GitHub-Delivery or X-GitHub-Event");
    },
    handler: async (req, reply) => {
      if (!gh) throw new FuzzFarmError("FF_ERR_NOT_FOUND", "GitHub App mode is not configured");
      const raw = typeof req.body === "string" ? req.body : "";
      if (!(await verifyWebhookSignature(gh.webhookSecret, raw, header(req.headers["x-hub-signature-256"]))))
        throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", "missing or invalid X-Hub-Signature-256");
      const delivery = header(req.headers["x-github-delivery"])!;
      const event = header(req.headers["x-github-event"])!;
      const ttl = gh.deliveryTtlSeconds ?? 7 * 24 * 3600;
      const redis = app.ff.redis;
      const deliveryKey = `${app.ff.prefix}:github:delivery:${delivery}`;
      const bodyKey = `${app.ff.prefix}:github:body:${createHash("sha256").update(raw).digest("hex")}`;
      if ((await redis.set(deliveryKey, String(Date.now()), "EX", ttl, "NX")) !== "OK") throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", `delivery ${delivery} was already received (replay)`);
      if ((await redis.set(bodyKey, delivery, "EX", ttl, "NX")) !== "OK") {
        await redis.del(deliveryKey);
        throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", `this body was already received under another delivery id (replay)`);
      }
      // Nothing started: forget the delivery and its body so GitHub's redelivery can try again.
      const forget = () => redis.del(deliveryKey, bodyKey).catch((err) => req.log.warn({ err, delivery }, `delivery ${delivery} not forgotten (its redelivery will be refused as a replay): ${(err as Error).message}`));
      let payload: unknown;
      try {
        payload = JSON.parse(raw);
      } catch {
        await forget();
        throw new FuzzFarmError("FF_ERR_VALIDATION", "webhook body is not JSON");
      }
      const request = checkRequestOf(event, payload);
      if (!request) return reply.code(202).send({ started: false, reason: `${event} ${String((payload as { action?: unknown } | null)?.action ?? "")} starts nothing`.trim().slice(0, 200) });
      try {
        const started = await gh.onCheckRequest(request);
        req.log.info({ delivery, event, campaignId: started.campaignId }, "github webhook started a campaign");
        return reply.code(202).send({ started: true, campaignId: started.campaignId, checkRunId: started.checkRunId });
      } catch (e) {
        await forget();
        throw e;
      }
    },
  });
}
