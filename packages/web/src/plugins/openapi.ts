// The OpenAPI document (@fastify/swagger, built from the routes' schemas) at
// /openapi.json, and swagger-ui at /docs.
import fp from "fastify-plugin";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { sharedSchemas } from "../schemas";

async function openapiPlugin(app: FastifyInstance) {
  for (const s of sharedSchemas) app.addSchema(s);
  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "FuzzFarm API",
        version: "1",
        description:
          "Dashboard and triage API of a FuzzFarm coordinator. Reads are open; writes need `Authorization: Bearer <admin token>` (or a dashboard session with its CSRF token). Errors carry stable codes: see docs/errors.md.",
      },
      components: {
        securitySchemes: {
          adminToken: { type: "http", scheme: "bearer", description: "the coordinator's admin token" },
          workerToken: { type: "http", scheme: "bearer", description: "the workers' token (worker endpoints only)" },
          session: { type: "apiKey", in: "cookie", name: "ff_session", description: "dashboard session; writes also need header X-CSRF-Token" },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}

export default fp(openapiPlugin, { name: "ff-openapi" });
