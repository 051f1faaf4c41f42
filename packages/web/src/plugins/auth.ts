// Who is asking, and may they write. Reads are open on a loopback dashboard
// and need a login when `requireAuthForReads` is set (a non-loopback bind);
// writes need either
//   - the admin token:  Authorization: Bearer <adminToken>   (API, CLI), or
//   - a login session (cookie, set by POST /login with the admin token) AND
//     a CSRF token matching the session's: header X-CSRF-Token, or a `_csrf`
//     field of a urlencoded form. The cookie is HttpOnly + SameSite=Strict.
// Workers present their own token, valid only on worker endpoints; the admin
// token is not accepted there, and the worker token never authorizes triage.
// CI clients (`fuzzfarm ci --farm`) present the CI token, valid only on the
// CI API (/api/ci/*, which also takes the admin token); it reads nothing else.
// Sessions live in Redis (`<prefix>:web:session:<id>`) with a TTL, so logout
// really ends them. Redis is writable by more parties than the dashboard
// trusts (workers, and any target that reaches it), so a session counts only
// when both the cookie and the stored record carry an HMAC made with a key
// derived from the admin token: a record written by hand is not a login.
// Authentication happens in onRequest, before any body is read: a request
// that cannot be authorized is refused without parsing its body.
import fp from "fastify-plugin";
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from "fastify";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import { createHash, createHmac } from "node:crypto";
import { parseCookies, randomId, sameSecret } from "../internal/tokens";

export const SESSION_COOKIE = "ff_session";

export interface Session {
  id: string;
  csrf: string;
  createdAt: number;
}

/** Who may call a route, checked in onRequest (before the body is read). */
export type RouteAuth = "worker" | "ci" | "public";

declare module "fastify" {
  interface FastifyContextConfig {
    /** "worker": only the worker token; "ci": the CI or the admin token; "public": open even when reads need a login (login page, assets, health). */
    auth?: RouteAuth;
  }
}

export type Auth =
  | { kind: "anonymous" }
  | { kind: "invalid-token" }
  | { kind: "admin-token" }
  | { kind: "worker-token" }
  | { kind: "ci-token" }
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

/**
 * Who performed a write, as recorded in bucket events: the authenticated
 * identity only (never a header the caller chooses): `api:admin-token`, or
 * `web:session-<8 hex of the session id's hash>` so one login's actions can
 * be told apart from another's without storing the session id itself.
 */
export function actorOf(req: FastifyRequest): string {
  const a = req.auth;
  if (a.kind === "admin-token") return "api:admin-token";
  if (a.kind === "ci-token") return "api:ci-token";
  if (a.kind === "session") return `web:session-${createHash("sha256").update(a.session.id).digest("hex").slice(0, 8)}`;
  return "unknown";
}

const PUBLIC_PREFIXES = ["/login", "/healthz", "/assets/", "/favicon"];

async function authPlugin(app: FastifyInstance) {
  const { adminToken, workerToken, ciToken, sessionTtlSeconds = 43_200, secureCookies = false, requireAuthForReads = false } = app.ff.opts;
  if (!adminToken || adminToken.length < 16) throw new FuzzFarmError("FF_ERR_CONFIG", "adminToken must have at least 16 characters");
  if (ciToken !== undefined && ciToken.length < 16) throw new FuzzFarmError("FF_ERR_CONFIG", "ciToken must have at least 16 characters");
  const key = (id: string) => `${app.ff.prefix}:web:session:${id}`;
  const sessionKey = createHmac("sha256", adminToken).update("fuzzfarm web session v1").digest();
  const mac = (what: string) => createHmac("sha256", sessionKey).update(what).digest("base64url");
  const recordMac = (s: Session) => mac(`record|${s.id}|${s.csrf}|${s.createdAt}`);

  async function sessionOf(cookieValue: string | undefined): Promise<Session | null> {
    const m = cookieValue ? /^([A-Za-z0-9_-]{20,100})\.([A-Za-z0-9_-]{43})$/.exec(cookieValue) : null;
    if (!m || !sameSecret(m[2], mac(`cookie|${m[1]}`))) return null;
    const raw = await app.ff.redis.get(key(m[1]!));
    if (!raw) return null;
    try {
      const r = JSON.parse(raw) as Partial<Session> & { mac?: unknown };
      if (typeof r.id !== "string" || typeof r.csrf !== "string" || typeof r.createdAt !== "number" || typeof r.mac !== "string") return null;
      const s: Session = { id: r.id, csrf: r.csrf, createdAt: r.createdAt };
      return s.id === m[1] && sameSecret(r.mac, recordMac(s)) ? s : null;
    } catch {
      return null;
    }
  }

  app.decorateRequest("auth", null as never);
  app.addHook("onRequest", async (req, reply) => {
    req.auth = { kind: "anonymous" };
    const h = req.headers.authorization;
    if (h) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
      const t = m?.[1];
      if (t && sameSecret(t, adminToken)) req.auth = { kind: "admin-token" };
      else if (t && workerToken && sameSecret(t, workerToken)) req.auth = { kind: "worker-token" };
      else if (t && ciToken && sameSecret(t, ciToken)) req.auth = { kind: "ci-token" };
      else req.auth = { kind: "invalid-token" };
    } else {
      const s = await sessionOf(parseCookies(req.headers.cookie)[SESSION_COOKIE]);
      if (s) req.auth = { kind: "session", session: s };
    }
    const routeAuth = req.routeOptions.config?.auth;
    const path = req.url.split("?")[0]!;
    const isPublic = routeAuth === "public" || PUBLIC_PREFIXES.some((p) => path === p || path.startsWith(p.endsWith("/") ? p : `${p}/`) || path.startsWith(`${p}?`));
    if (routeAuth === "worker") return assertWorker(req, !!workerToken);
    if (routeAuth === "ci") return assertCi(req);
    // Every unsafe method except logging in needs some credential: refuse
    // here, before the body is read (the CSRF check, which may need a form
    // field, follows in the route's preHandler).
    if (UNSAFE.has(req.method) && !isPublic && (req.auth.kind === "anonymous" || req.auth.kind === "invalid-token"))
      throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", req.auth.kind === "invalid-token" ? "invalid token" : "this action needs a token or a login");
    if (requireAuthForReads && !isPublic && req.auth.kind !== "admin-token" && req.auth.kind !== "session") {
      if (req.auth.kind === "anonymous" && req.method === "GET" && (req.headers.accept ?? "").includes("text/html"))
        return reply.redirect(`/login?next=${encodeURIComponent(path)}`, 303);
      if (req.auth.kind === "worker-token") throw new FuzzFarmError("FF_ERR_FORBIDDEN", "the worker token cannot read the dashboard");
      if (req.auth.kind === "ci-token") throw new FuzzFarmError("FF_ERR_FORBIDDEN", "the CI token cannot read the dashboard");
      throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", req.auth.kind === "invalid-token" ? "invalid token" : "this dashboard needs a token or a login to read");
    }
  });

  const cookie = (value: string, maxAge: number) =>
    `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secureCookies ? "; Secure" : ""}`;

  app.decorate("createSession", async (reply: FastifyReply) => {
    const s: Session = { id: randomId(), csrf: randomId(), createdAt: Date.now() };
    await app.ff.redis.set(key(s.id), JSON.stringify({ ...s, mac: recordMac(s) }), "EX", sessionTtlSeconds);
    reply.header("set-cookie", cookie(`${s.id}.${mac(`cookie|${s.id}`)}`, sessionTtlSeconds));
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
  if (a.kind === "ci-token") throw new FuzzFarmError("FF_ERR_FORBIDDEN", "the CI token cannot perform this action");
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
  if (a.kind === "worker-token" || a.kind === "ci-token") throw new FuzzFarmError("FF_ERR_FORBIDDEN", `the ${a.kind === "ci-token" ? "CI" : "worker"} token cannot open admin pages`);
  throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", a.kind === "invalid-token" ? "invalid token" : "admin pages need a token or a login");
}

/** Throws unless the request carries the worker token. */
export function assertWorker(req: FastifyRequest, configured: boolean): void {
  const a = req.auth;
  if (a.kind === "worker-token") return;
  if (!configured) throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", "no worker token is configured on this coordinator");
  if (a.kind === "admin-token" || a.kind === "session" || a.kind === "ci-token") throw new FuzzFarmError("FF_ERR_FORBIDDEN", "worker endpoints take the worker token");
  throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", a.kind === "invalid-token" ? "invalid token" : "worker endpoints need the worker token");
}

/** Throws unless the request carries the CI token or the admin token (bearer; a login session is not a CI client). */
export function assertCi(req: FastifyRequest): void {
  const a = req.auth;
  if (a.kind === "ci-token" || a.kind === "admin-token") return;
  if (a.kind === "worker-token" || a.kind === "session") throw new FuzzFarmError("FF_ERR_FORBIDDEN", "the CI API takes the CI token or the admin token");
  throw new FuzzFarmError("FF_ERR_UNAUTHORIZED", a.kind === "invalid-token" ? "invalid token" : "the CI API needs the CI token or the admin token (Authorization: Bearer)");
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
