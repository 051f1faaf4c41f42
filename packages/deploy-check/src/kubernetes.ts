// Kubernetes manifests checked against the Kubernetes OpenAPI schemas
// (kubernetes-models, generated from the API's OpenAPI description; KEDA's
// CRDs from @kubernetes-models/keda), then against our rules for pods that
// run untrusted code: non-root, no privilege escalation, limits.
import { parseAllDocuments } from "yaml";
import type { Problem } from "./problem";

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: unknown) => Validatable;

/** apiVersion/kind -> the module exporting its model (core group has no prefix). */
function modelModule(apiVersion: string, kind: string): string {
  if (apiVersion.startsWith("keda.sh/")) return `@kubernetes-models/keda/${apiVersion}/${kind}`;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

async function modelFor(apiVersion: string, kind: string): Promise<ModelClass | null> {
  if (!/^[a-z0-9.]*\/?v[0-9a-z]+$/.test(apiVersion) || !/^[A-Za-z]+$/.test(kind)) return null;
  try {
    const mod = (await import(modelModule(apiVersion, kind))) as Record<string, ModelClass>;
    return mod[kind] ?? null;
  } catch {
    return null;
  }
}

/** A parsed manifest: free-form YAML, read field by field. */
type Obj = Record<string, any>;

/** Problems of a multi-document manifest text. */
export async function checkManifests(text: string, file = "manifest"): Promise<{ problems: Problem[]; kinds: string[] }> {
  const problems: Problem[] = [];
  const kinds: string[] = [];
  for (const d of parseAllDocuments(text)) {
    if (d.errors.length) {
      problems.push({ where: file, what: `YAML: ${d.errors[0]!.message}` });
      continue;
    }
    const obj = d.toJS() as Obj | null;
    if (!obj) continue;
    const where = `${file}: ${obj.kind}/${obj.metadata?.name}`;
    kinds.push(`${obj.kind}/${obj.metadata?.name}`);
    const Model = await modelFor(String(obj.apiVersion), String(obj.kind));
    if (!Model) {
      problems.push({ where, what: `no schema for ${obj.apiVersion} ${obj.kind}` });
      continue;
    }
    try {
      new Model(obj).validate();
    } catch (e) {
      problems.push({ where, what: `schema: ${String((e as Error).message).split("\n").slice(0, 3).join(" ")}` });
    }
    if (obj.kind === "Deployment") problems.push(...podRules(obj.spec?.template?.spec ?? {}, where));
  }
  return { problems, kinds };
}

function podRules(pod: Obj, where: string): Problem[] {
  const out: Problem[] = [];
  const psc = pod.securityContext ?? {};
  if (pod.automountServiceAccountToken !== false) out.push({ where, what: "mounts a service account token it does not need" });
  for (const c of pod.containers ?? []) {
    const sc = c.securityContext ?? {};
    const at = `${where} container ${c.name}`;
    if (!(sc.runAsNonRoot ?? psc.runAsNonRoot)) out.push({ where: at, what: "may run as root (runAsNonRoot)" });
    if (sc.allowPrivilegeEscalation !== false) out.push({ where: at, what: "allows privilege escalation" });
    if (!sc.readOnlyRootFilesystem) out.push({ where: at, what: "writable root filesystem" });
    if (!c.resources?.limits?.cpu || !c.resources?.limits?.memory) out.push({ where: at, what: "no CPU/memory limits" });
    for (const e of c.env ?? []) if (/(PASSWORD|TOKEN|KEY|URL)$/.test(e.name) && typeof e.value === "string" && /:\/\/[^/]*:[^@/]+@/.test(e.value)) out.push({ where: at, what: `${e.name} holds a credential inline` });
  }
  return out;
}
