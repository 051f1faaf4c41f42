// A local stand-in for the GitHub REST API, for tests (no network to GitHub
// here). Every request is checked against GitHub's published OpenAPI
// description (@octokit/openapi): the path and method must name an
// operation, and a JSON body must satisfy the operation's request schema
// (ajv). Requests are recorded in order; the check-run, installation and
// installation-token operations answer like GitHub does. Tokens are checked:
// a fixed token, or an App's RS256 JWT (verified with the App's public key)
// exchanged for installation tokens.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createPublicKey, createVerify, randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import Ajv04Module from "ajv-draft-04";

const require = createRequire(import.meta.url);

type Spec = { paths: Record<string, Record<string, { operationId?: string; requestBody?: { content?: Record<string, { schema?: unknown }> } }>>; components: unknown };
const specCache = new Map<string, Spec>();

/** GitHub's OpenAPI description as shipped by @octokit/openapi ("api.github.com", "ghes-3.19", ...). */
export function loadGitHubSpec(name = "api.github.com"): Spec {
  let s = specCache.get(name);
  if (!s) {
    const file = require.resolve(`@octokit/openapi/generated/${name}.json`);
    s = JSON.parse(readFileSync(file, "utf8")) as Spec;
    specCache.set(name, s);
  }
  return s;
}

export interface RecordedRequest {
  method: string;
  /** Path below the API root, without the query. */
  path: string;
  operationId: string | null;
  /** The OpenAPI path template matched, e.g. `/repos/{owner}/{repo}/check-runs`. */
  template: string | null;
  params: Record<string, string>;
  body: unknown;
  /** "token" (the fixed token), "app-jwt", "installation" (a token this server issued) or "none"/"invalid". */
  auth: string;
  /** Empty when the request conforms to the spec. */
  errors: string[];
}

export interface FakeGitHubOptions {
  /** Spec variant of @octokit/openapi. Default "api.github.com". */
  spec?: string;
  /** API root path, "" for api.github.com, "/api/v3" for GitHub Enterprise Server. Default "". */
  pathPrefix?: string;
  /** Accepted token (Actions' GITHUB_TOKEN). */
  token?: string;
  /** An App: JWTs signed by its key are accepted on /app endpoints. */
  app?: { appId: number; publicKeyPem: string; installationId: number };
}

export interface FakeGitHub {
  /** Base URL to give Octokit, e.g. http://127.0.0.1:PORT/api/v3. */
  url: string;
  requests: RecordedRequest[];
  /** Requests that did not conform to the spec (path, method, body or auth). */
  invalid(): RecordedRequest[];
  close(): Promise<void>;
}

function matcher(spec: Spec) {
  const routes = Object.keys(spec.paths).map((t) => {
    const names: string[] = [];
    const re = new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{([^}]+)\}/g, (_m, n: string) => (names.push(n), "([^/]+)"))}$`);
    return { t, re, names, literal: t.replace(/\{[^}]+\}/g, "").length };
  });
  // Most literal first: /repos/{owner}/{repo}/check-runs beats /repos/{owner}/{repo}/{x}.
  routes.sort((a, b) => b.literal - a.literal);
  return (path: string) => {
    for (const r of routes) {
      const m = r.re.exec(path);
      if (m) return { template: r.t, params: Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) };
    }
    return null;
  };
}

function verifyJwt(jwt: string, publicKeyPem: string, appId: number): boolean {
  const [h, p, s] = jwt.split(".");
  if (!h || !p || !s) return false;
  const v = createVerify("RSA-SHA256");
  v.update(`${h}.${p}`);
  if (!v.verify(createPublicKey(publicKeyPem), Buffer.from(s, "base64url"))) return false;
  const claims = JSON.parse(Buffer.from(p, "base64url").toString("utf8")) as { iss?: unknown; exp?: number; iat?: number };
  const now = Date.now() / 1000;
  return String(claims.iss) === String(appId) && typeof claims.exp === "number" && claims.exp > now && claims.exp - (claims.iat ?? 0) <= 600 + 60;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startFakeGitHub(opts: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const spec = loadGitHubSpec(opts.spec);
  const match = matcher(spec);
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (template: string, method: string, schema: unknown): ValidateFunction => {
    const key = `${method} ${template}`;
    let v = validators.get(key);
    if (!v) {
      // The operation's schema with the spec's components beside it, so its "#/components/..." refs resolve.
      v = ajv.compile({ ...(schema as object), components: spec.components, $id: `https://fake-github.invalid/${validators.size}` });
      validators.set(key, v);
    }
    return v;
  };
  const prefix = opts.pathPrefix ?? "";
  const requests: RecordedRequest[] = [];
  const issued = new Set<string>();
  let nextCheckId = 1000;
  const checks = new Map<number, Record<string, unknown>>();

  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? "/", "http://x");
    const method = (req.method ?? "GET").toLowerCase();
    const errors: string[] = [];
    let path = url.pathname;
    if (prefix && path.startsWith(prefix)) path = path.slice(prefix.length);
    else if (prefix) errors.push(`path ${path} is outside the API root ${prefix}`);
    const m = match(path);
    const op = m ? spec.paths[m.template]?.[method] : undefined;
    if (!m) errors.push(`no operation has the path ${path}`);
    else if (!op) errors.push(`${method.toUpperCase()} is not an operation of ${m.template}`);
    let body: unknown = undefined;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        errors.push("body is not JSON");
      }
    }
    const schema = op?.requestBody?.content?.["application/json"]?.schema;
    if (op && schema && body !== undefined) {
      const v = validatorFor(m!.template, method, schema);
      if (!v(body)) errors.push(...(v.errors ?? []).map((e) => `body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));
    } else if (op && body !== undefined && !schema) errors.push("operation takes no JSON body");
    const authz = String(req.headers.authorization ?? "");
    const cred = authz.replace(/^(token|bearer)\s+/i, "");
    let auth = "none";
    if (cred) {
      if (opts.token && cred === opts.token) auth = "token";
      else if (issued.has(cred)) auth = "installation";
      else if (opts.app && cred.split(".").length === 3 && verifyJwt(cred, opts.app.publicKeyPem, opts.app.appId)) auth = "app-jwt";
      else auth = "invalid";
    }
    const rec: RecordedRequest = { method: method.toUpperCase(), path, operationId: op?.operationId ?? null, template: m?.template ?? null, params: m?.params ?? {}, body, auth, errors };
    requests.push(rec);
    const send = (status: number, data: unknown) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(data));
    };
    if (errors.length) return send(422, { message: "Validation Failed", errors });
    const appOp = m!.template.startsWith("/app") || m!.template === "/repos/{owner}/{repo}/installation";
    if (appOp ? auth !== "app-jwt" : auth !== "token" && auth !== "installation") {
      rec.errors.push(`authentication ${auth} not accepted on ${m!.template}`);
      return send(401, { message: "Bad credentials" });
    }
    switch (op!.operationId) {
      case "apps/get-repo-installation":
        return send(200, { id: opts.app!.installationId, account: { login: m!.params.owner }, app_id: opts.app!.appId, target_type: "Organization", permissions: { checks: "write", contents: "read", pull_requests: "read" } });
      case "apps/create-installation-access-token": {
        if (Number(m!.params.installation_id) !== opts.app!.installationId) return send(404, { message: "Not Found" });
        const token = `ghs_${randomBytes(18).toString("hex")}`;
        issued.add(token);
        return send(201, { token, expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: { checks: "write", contents: "read", pull_requests: "read" }, repository_selection: "all" });
      }
      case "checks/create": {
        const id = nextCheckId++;
        const run = { id, ...(body as object), status: (body as { status?: string }).status ?? "queued", html_url: `https://github.invalid/runs/${id}` };
        checks.set(id, run);
        return send(201, run);
      }
      case "checks/update": {
        const id = Number(m!.params.check_run_id);
        const run = checks.get(id);
        if (!run) return send(404, { message: "Not Found" });
        Object.assign(run, body as object);
        return send(200, run);
      }
      default:
        return send(404, { message: `the fake GitHub does not answer ${op!.operationId}` });
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    invalid: () => requests.filter((r) => r.errors.length > 0),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The official SARIF 2.1.0 JSON schema (sarif-2.1.0-rtm.5), as shipped by @microsoft/jest-sarif. */
export function sarifSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8")) as Record<string, unknown>;
}

/** Validate a SARIF log against the 2.1.0 schema (a draft-04 JSON schema); returns the errors (empty when valid). */
export function sarifErrors(log: unknown): string[] {
  const Ajv04 = ((Ajv04Module as unknown as { default?: typeof Ajv }).default ?? Ajv04Module) as unknown as typeof Ajv;
  // The schema's language-tag pattern is a non-unicode regular expression (a lone "]").
  const ajv = new Ajv04({ strict: false, allErrors: true, logger: false, unicodeRegExp: false });
  (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
  const v = ajv.compile(sarifSchema());
  return v(log) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
