// buildApp: the dashboard and JSON API as a fastify instance, separate from
// listening (the coordinator app and `fuzzfarm up` call listen). Shared
// plugins first (errors, the query-string check, services = db + redis, auth, security headers,
// OpenAPI), then one folder per resource under routes/.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import errors from "./plugins/errors";
import services from "./plugins/services";
import hostGuard from "./plugins/host-guard";
import queryGuard from "./plugins/query-guard";
import auth from "./plugins/auth";
import security from "./plugins/security";
import openapi from "./plugins/openapi";
import metrics from "./routes/metrics/index";
import assets from "./routes/assets";
import authRoutes from "./routes/auth/index";
import overview from "./routes/overview/index";
import campaignApi from "./routes/campaigns/api";
import campaignPage from "./routes/campaigns/page";
import bucketApi from "./routes/buckets/api";
import bucketPages from "./routes/buckets/pages";
import workers from "./routes/workers/index";
import queues from "./routes/queues/index";
import coverage from "./routes/coverage/index";
import events from "./routes/events/index";
import artifacts from "./routes/artifacts/index";
import githubWebhook from "./routes/github/webhook";
import ciApi from "./routes/ci/index";
import type { BuildAppOptions } from "./options";
import { RequestLog } from "./internal/request-log";

export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(typeof opts.logger === "object" ? { loggerInstance: opts.logger satisfies FastifyBaseLogger as FastifyBaseLogger } : { logger: opts.logger ?? false }),
    logController: new RequestLog(),
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { removeAdditional: true, coerceTypes: "array", useDefaults: true, allErrors: false } },
  });
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 64 * 1024 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  await app.register(errors);
  await app.register(queryGuard);
  await app.register(services, opts);
  await app.register(hostGuard);
  await app.register(auth);
  await app.register(security);
  await app.register(openapi);
  await app.register(metrics);

  await app.register(assets);
  await app.register(authRoutes);
  await app.register(overview);
  await app.register(campaignApi);
  await app.register(campaignPage);
  await app.register(bucketApi);
  await app.register(bucketPages);
  await app.register(workers);
  await app.register(queues);
  await app.register(coverage);
  await app.register(events);
  await app.register(artifacts);
  await app.register(githubWebhook);
  await app.register(ciApi);

  app.get("/healthz", { schema: { hide: true }, config: { auth: "public" } }, async () => ({ ok: true }));
  await app.ready();
  return app;
}
