// Who is asking, and may they write. Reads are open; writes need either
//   - the admin token:  Authorization: Bearer <adminToken>   (API, CLI), or
//   - a login session (cookie, set by POST /login with the admin token) AND
//     a CSRF token matching the session's: header X-CSRF-Token, or a `_csrf`
//     field of a urlencoded form. The cookie is HttpOnly + SameSite=Strict.
// Workers present their own token, valid only on worker endpoints; the admin
// token is not accepted there, and the worker token never authorizes triage.
// Sessions live in Redis (`<prefix>:web:session:<id>`) with a TTL, so logout
// really ends them.
import fp from "fastify-plugin";
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from "fastify";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { parseCookies, randomId, sameSecret } from "../internal/tokens";

export const SESSION_COOKIE = "ff_session";

export interface Session {
  id: string;
  csrf: string;
  createdAt: number;
}

export type Auth =
  | { kind: "anonymous" }
  | { kind: "invalid-token" }
  | { kind: "admin-token" }
  | { kind: "worker-token" }
  | { kind: "session"; session: Session };

declare module "fastify" {
  interface FastifyInstance {
    /** preHandler: admin token, or session + CSRF token. */
    requireWrite: preHandlerHookHandler;
    /** preHandler: admin token or session (reads of admin-only pages such as bull-board; unsafe methods also need a same-origin request). */
    requireAdmin: preHandlerHookHandler;
    /** preHandler: worker token. */
    requireWorker: preHandlerHookHandler;
    createSession(reply: FastifyReply): Promise<Session>;
    destroySession(req: FastifyRequest, reply: FastifyReply): Promise<void>;
  }
  interface FastifyRequest {
    auth: Auth;
  }
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Who performed a write, as recorded in bucket events. */
export function actorOf(req: FastifyRequest): string {
  const who = String(req.headers["x-fuzzfarm-actor"] ?? "").replace(/[^A-Za-z0-9_.@-]/g, "").slice(0, 40);
  const base = req.auth.kind === "session" ? "web" : req.auth.kind === "admin-token" ? "api" : "unknown";
  return who ? `${base}:${who}` : base;
}

async function authPlugin(app: FastifyInstance) {
  const { adminToken, workerToken, sessionTtlSeconds = 43_200, secureCookies = false } = app.ff.opts;
  if (!adminToken || adminToken.length < 16) throw new FuzzFarmError("FF_ERR_CONFIG", "adminToken must have at least 16 characters");
  const key = (id: string) => `${app.ff.prefix}:web:session:${id}`;

  app.decorateRequest("auth", null as never);
  app.addHook("onRequest", async (req) => {
    req.auth = { kind: "anonymous" };
    const h = req.headers.authorization;
    if (h) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
      const t = m?.[1];
      if (t && sameSecret(t, adminToken)) req.auth = { kind: "admin-token" };
      else if (t && workerToken && sameSecret(t, workerToken)) req.auth = { kind: "worker-token" };
      else req.auth = { kind: "invalid-token" };
      return;
    }
    const sid = parseCookies(req.headers.cookie)[SESSION_COOKIE];
    if (sid && /^[A-Za-z0-9_-]{20,100}$/.test(sid)) {
      const raw = await app.ff.redis.get(key(sid));
      if (raw) req.auth = { kind: "session", session: JSON.parse(raw) as Session };
    }
  });

  const cookie = (value: string, maxAge: number) =>
    `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secureCookies ? "; Secure" : ""}`;

  app.decorate("createSession", async (reply: FastifyReply) => {
    const s: Session = { id: randomId(), csrf: randomId(), createdAt: Date.now() };
    await app.ff.redis.set(key(s.id), JSON.stringify(s), "EX", sessionTtlSeconds);
    reply.header("set-cookie", cookie(s.id, sessionTtlSeconds));
    return s;
  });
  app.decorate("destroySession", async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.auth.kind === "session") await app.ff.redis.del(key(req.auth.session.id));
    reply.header("set-cookie", cookie("", 0));
  });

  app.decorate("requireWrite", async function (req: FastifyRequest) {
    assertWrite(req);
  });
  app.decorate("requireAdmin", async function (req: FastifyRequest) {
    assertAdmin(req);
  });
  app.decorate("requireWorker", async function (req: FastifyRequest) {
    assertWorker(req, !!workerToken);
  });
}

function csrfOf(req: FastifyRequest): string | undefined {
  const h = req.headers["x-csrf-token"];
  if (typeof h === "string") return h;
  const b = req.body as Record<string, unknown> | undefined;
  return b && typeof b === "object" && typeof b._csrf === "string" ? b._csrf : undefined;
}

/** Throws unless the request may write: admin token, or session + CSRF token. */
export function assertWrite(req: FastifyRequest): void {
  const a = req.auth;
  if (a.kind === "admin-token") return;
  if (a.kind === "session") {
    if (!sameSecret(csrfOf(req), a.session.csrf)) throw new FuzzFarmError("FF_ERR_FORBIDDEN", "missing or wrong CSRF token");
    return;
  }
  if (a.kind === "worker-token") throw new FuzzFarmError("FF_ERR_FORBIDDEN", "the worker token cannot perform this action");
  throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", a.kind === "invalid-token" ? "invalid token" : "this action needs a token or a login");
}

/** Throws unless the request may use admin pages: admin token, or session (unsafe methods: same origin only). */
export function assertAdmin(req: FastifyRequest): void {
  const a = req.auth;
  if (a.kind === "admin-token") return;
  if (a.kind === "session") {
    if (UNSAFE.has(req.method) && !sameOrigin(req)) throw new FuzzFarmError("FF_ERR_FORBIDDEN", "cross-origin write refused");
    return;
  }
  if (a.kind === "worker-token") throw new FuzzFarmError("FF_ERR_FORBIDDEN", "the worker token cannot open admin pages");
  throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", a.kind === "invalid-token" ? "invalid token" : "admin pages need a token or a login");
}

/** Throws unless the request carries the worker token. */
export function assertWorker(req: FastifyRequest, configured: boolean): void {
  const a = req.auth;
  if (a.kind === "worker-token") return;
  if (!configured) throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", "no worker token is configured on this coordinator");
  if (a.kind === "admin-token" || a.kind === "session") throw new FuzzFarmError("FF_ERR_FORBIDDEN", "worker endpoints take the worker token");
  throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", a.kind === "invalid-token" ? "invalid token" : "worker endpoints need the worker token");
}

/** The request's Origin (or Referer) names this host: what browsers send on same-origin fetches. */
function sameOrigin(req: FastifyRequest): boolean {
  const from = req.headers.origin ?? req.headers.referer;
  if (!from) return false;
  try {
    return new URL(from).host === req.headers.host;
  } catch {
    return false;
  }
}

export default fp(authPlugin, { name: "ff-auth", dependencies: ["ff-services"] });
