// Logging into the pages: the admin token, once, in a form; the answer is a
// session cookie (HttpOnly, SameSite=Strict) and the pages then carry the
// session's CSRF token on every write. `next` is only ever a local path.
import type { FastifyInstance } from "fastify";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { html } from "../../html/escape";
import { sendPage } from "../../internal/pages";
import { sameSecret } from "../../internal/tokens";
import { assertWrite } from "../../plugins/auth";

/** Only same-site paths: "/x", never "//host" or "/\\host" or a scheme. */
export const localPath = (p: unknown) => (typeof p === "string" && /^\/(?![/\\])[^\s]*$/.test(p) ? p : "/");

export default async function authRoutes(app: FastifyInstance) {
  app.get("/login", {
    config: { auth: "public" },
    schema: { hide: true, querystring: { type: "object", properties: { next: { type: "string", maxLength: 500 }, failed: { type: "string", maxLength: 1 } } } },
    handler: async (req, reply) => {
      const q = req.query as { next?: string; failed?: string };
      const body = html`<h1>Log in</h1>
${q.failed ? html`<p class="error-message">Wrong token.</p>` : ""}
${req.auth.kind === "session" ? html`<p>You are logged in.</p>` : ""}
<form method="post" action="/login" class="login-form">
  <input type="hidden" name="next" value="${localPath(q.next)}">
  <label>Admin token <input type="password" name="token" autocomplete="current-password" required minlength="16"></label>
  <button type="submit">Log in</button>
</form>
<p class="muted"><code>fuzzfarm up</code> prints the admin token when it starts.</p>`;
      return sendPage(req, reply, { title: "Log in", active: "login", body });
    },
  });

  app.post("/login", {
    config: { auth: "public" },
    bodyLimit: 4 * 1024,
    schema: {
      tags: ["auth"],
      summary: "Log into the pages with the admin token (form or JSON); sets the session cookie",
      body: { type: "object", required: ["token"], properties: { token: { type: "string", maxLength: 512 }, next: { type: "string", maxLength: 500 } } },
    },
    handler: async (req, reply) => {
      const b = req.body as { token: string; next?: string };
      const form = (req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded");
      if (!sameSecret(b.token, app.ff.opts.adminToken)) {
        if (form) return reply.redirect(`/login?failed=1&next=${encodeURIComponent(localPath(b.next))}`, 303);
        throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", "wrong token");
      }
      const s = await app.createSession(reply);
      if (form) return reply.redirect(localPath(b.next), 303);
      return { csrfToken: s.csrf };
    },
  });

  app.post("/logout", {
    schema: { tags: ["auth"], summary: "End the session (needs its CSRF token: header X-CSRF-Token or form field _csrf)" },
    handler: async (req, reply) => {
      if (req.auth.kind !== "session") throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", "not logged in");
      assertWrite(req);
      await app.destroySession(req, reply);
      const form = (req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded");
      return form ? reply.redirect("/", 303) : { ok: true };
    },
  });
}
