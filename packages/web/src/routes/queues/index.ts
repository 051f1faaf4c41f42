// Queue depths (JSON), and bull-board mounted under /admin/queues for
// inspecting and retrying BullMQ jobs. bull-board can delete and retry jobs,
// so the whole admin path needs the admin token or a login session, and its
// unsafe requests must come from this origin (see plugins/auth.ts).
import type { FastifyInstance } from "fastify";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { FastifyAdapter } from "@bull-board/fastify";
import { queueDepths } from "@fuzzfarm/queue";
import { QueueDepth, readErrors } from "../../schemas";
import { assertAdmin } from "../../plugins/auth";
import { sendError, toFuzzFarmError } from "../../plugins/errors";

export const BOARD_PATH = "/admin/queues";

export default async function queueRoutes(app: FastifyInstance) {
  app.get("/api/queues", {
    schema: {
      tags: ["queues"],
      summary: "Depth of every farm queue",
      response: { 200: { type: "object", properties: { queues: { type: "object", additionalProperties: QueueDepth } } }, ...readErrors },
    },
    handler: async () => ({ queues: await queueDepths(app.ff.queues) }),
  });

  await app.register(async (admin) => {
    admin.addHook("onRequest", async (req, reply) => {
      try {
        assertAdmin(req);
      } catch (e) {
        if (req.method === "GET" && (req.headers.accept ?? "").includes("text/html") && (e as { code?: string }).code === "FF_ERR_UNAUTHORIZED")
          return reply.redirect(`/login?next=${encodeURIComponent(BOARD_PATH)}`, 303);
        return sendError(req, reply, toFuzzFarmError(e));
      }
    });
    const serverAdapter = new FastifyAdapter();
    createBullBoard({ queues: app.ff.queues.all().map((q) => new BullMQAdapter(q, { readOnlyMode: !app.ff.opts.queueBoardWritable })), serverAdapter, options: { uiConfig: { boardTitle: "FuzzFarm queues" } } });
    serverAdapter.setBasePath(BOARD_PATH);
    await admin.register(serverAdapter.registerPlugin(), { prefix: BOARD_PATH });
  });
}
