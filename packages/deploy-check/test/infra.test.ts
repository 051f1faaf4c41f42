// The repository's deployment files pass their published schemas and our
// rules, and the checks are not vacuous: each broken variant is caught.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { workerAclRules } from "@fuzzfarm/queue";
import { checkCompose, checkManifests } from "../src/index";

const INFRA = fileURLToPath(new URL("../../../infra", import.meta.url));
const compose = readFileSync(join(INFRA, "docker-compose.yml"), "utf8");
const k8sFiles = readdirSync(join(INFRA, "k8s")).filter((f) => f.endsWith(".yaml"));

test("infra/docker-compose.yml passes the Compose Specification schema and our rules", () => {
  assert.deepEqual(checkCompose(compose), []);
});

test("broken compose files are caught", () => {
  const cases: [string, string, RegExp][] = [
    ["trust auth", compose.replace("POSTGRES_HOST_AUTH_METHOD: scram-sha-256", "POSTGRES_HOST_AUTH_METHOD: trust"), /trust authentication/],
    ["unknown field", compose.replace("    stop_grace_period: 60s", "    stop_grace_periodd: 60s"), /schema: must NOT have additional properties/],
    ["undeclared secret", compose.replace("secrets: [worker_redis_url, job_key]", "secrets: [worker_redis_url, job_key, nope]"), /secret nope is not declared/],
    ["inline password", compose.replace("FUZZFARM_REDIS_URL_FILE: /run/secrets/worker_redis_url", "FUZZFARM_REDIS_URL: redis://worker:hunter2@redis:6379"), /inline/],
    ["unscalable worker", compose.replace("    command: [\"worker\"]", "    command: [\"worker\"]\n    container_name: w1"), /--scale/],
    ["redis without password", compose.replace('"--aclfile", "/run/secrets/users_acl", ', ""), /Redis without a password/],
    ["ungated start", compose.replace("    depends_on:\n      redis: { condition: service_healthy }\n    stop_grace_period: 60s", "    depends_on: [redis]\n    stop_grace_period: 60s"), /not gated on health/],
  ];
  for (const [what, text, want] of cases) {
    assert.notEqual(text, compose, `${what}: the mutation applied`);
    const problems = checkCompose(text);
    assert.ok(problems.some((p) => want.test(p.what)), `${what}: ${JSON.stringify(problems)}`);
  }
});

test("infra/k8s manifests pass the Kubernetes and KEDA schemas and the pod rules", async () => {
  const kinds: string[] = [];
  for (const f of k8sFiles) {
    const r = await checkManifests(readFileSync(join(INFRA, "k8s", f), "utf8"), f);
    assert.deepEqual(r.problems, [], f);
    kinds.push(...r.kinds);
  }
  for (const k of ["Deployment/fuzzfarm-coordinator", "Service/fuzzfarm-dashboard", "Deployment/fuzzfarm-worker", "PodDisruptionBudget/fuzzfarm-worker", "ScaledObject/fuzzfarm-worker", "TriggerAuthentication/fuzzfarm-redis"])
    assert.ok(kinds.includes(k), `${k} in ${kinds.join(", ")}`);
});

test("broken manifests are caught", async () => {
  const workers = readFileSync(join(INFRA, "k8s", "workers.yaml"), "utf8");
  const keda = readFileSync(join(INFRA, "k8s", "keda.yaml"), "utf8");
  const cases: [string, string, RegExp][] = [
    ["wrong type", workers.replace("terminationGracePeriodSeconds: 60", 'terminationGracePeriodSeconds: "sixty"'), /schema:/],
    ["root", workers.replace("runAsNonRoot: true\n", "runAsNonRoot: false\n"), /may run as root/],
    ["no limits", workers.replace("            limits: { cpu: \"1\", memory: 2Gi }\n", ""), /no CPU\/memory limits/],
    ["escalation", workers.replace("allowPrivilegeEscalation: false", "allowPrivilegeEscalation: true"), /privilege escalation/],
    ["typo in apiVersion", workers.replace("apiVersion: policy/v1", "apiVersion: policy/v2"), /no schema for policy\/v2/],
    ["keda field", keda.replace("minReplicaCount: 1", "minReplicaCount: one"), /schema:/],
  ];
  for (const [what, text, want] of cases) {
    const file = what === "keda field" ? keda : workers;
    assert.notEqual(text, file, `${what}: the mutation applied`);
    const { problems } = await checkManifests(text, what);
    assert.ok(problems.some((p) => want.test(p.what)), `${what}: ${JSON.stringify(problems)}`);
  }
});

test("infra/secrets.sh makes every secret the compose file names, once, with the workers' ACL from workerAclRules", () => {
  const dir = mkdtempSync(join(tmpdir(), "ff-infra-"));
  try {
    cpSync(join(INFRA, "secrets.sh"), join(dir, "secrets.sh"));
    execFileSync("sh", [join(dir, "secrets.sh")], { stdio: "ignore" });
    const made = readdirSync(join(dir, "secrets")).sort();
    const named = [...compose.matchAll(/file: \.\/secrets\/([a-z_.]+)/g)].map((m) => m[1]!).sort();
    for (const n of named) assert.ok(made.includes(n), `${n} missing from ${made.join(", ")}`);
    const acl = readFileSync(join(dir, "secrets", "users.acl"), "utf8");
    const workerLine = acl.split("\n").find((l) => l.startsWith("user worker "))!;
    assert.equal(workerLine.replace(/^user worker on >\S+ /, ""), workerAclRules("fuzzfarm"));
    const before = readFileSync(join(dir, "secrets", "job_key"), "utf8");
    execFileSync("sh", [join(dir, "secrets.sh")], { stdio: "ignore" });
    assert.equal(readFileSync(join(dir, "secrets", "job_key"), "utf8"), before, "a second run keeps existing secrets");
    assert.match(before, /^[0-9a-f]{64}$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
