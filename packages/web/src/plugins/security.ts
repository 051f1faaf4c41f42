// Response headers for defence in depth. Escaping is what keeps crash text
// inert (see html/escape.ts); the CSP additionally refuses inline scripts
// and handlers on our pages, so a missed escape still could not run script.
// Third-party UIs (swagger-ui under /docs, bull-board under /admin/queues)
// bring their own markup and are left without our CSP; routes that set their
// own CSP (the istanbul report) keep it.
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";

export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join("; ");

async function securityPlugin(app: FastifyInstance) {
  app.addHook("onSend", async (req, reply, payload) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "same-origin");
    const type = String(reply.getHeader("content-type") ?? "");
    const thirdParty = req.url.startsWith("/docs") || req.url.startsWith("/admin/");
    if (type.startsWith("text/html") && !thirdParty) {
      if (!reply.hasHeader("content-security-policy")) reply.header("content-security-policy", PAGE_CSP);
      reply.header("x-frame-options", "SAMEORIGIN");
      reply.header("cache-control", "no-store");
    }
    return payload;
  });
}

export default fp(securityPlugin, { name: "ff-security" });
