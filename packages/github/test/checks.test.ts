// Check runs, SARIF and webhook signatures against GitHub's published
// OpenAPI description: a local server plays the REST API, validates every
// request (path, method, JSON body against the operation's schema, auth) and
// records the sequence the tests assert.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync, createHmac } from "node:crypto";
import { CheckRun, checkRequestOf, createGitHubClient, pullRequestChecks, toSarif, verifyWebhookSignature, type PullRequestBucket, type PullRequestReport } from "@fuzzfarm/github";
import { sarifErrors, startFakeGitHub } from "@fuzzfarm/github/testing";

function bucket(i: number, cls: PullRequestBucket["class"]): PullRequestBucket {
  return {
    id: `b_${i}`,
    kind: "uncaught",
    title: `uncaught Error in bug${i} (src/t.js)`,
    signature: `uncaught:Error | bug${i}@src/t.js`,
    message: `Error: bug ${i}`,
    class: cls,
    head: { runs: 3, hits: cls === "fixed" ? 0 : 3 },
    base: { runs: 3, hits: cls === "new" ? 0 : 3 },
    location: { path: "src/t.js", line: 10 + i, column: 5 },
    reproduce: `fuzzfarm repro b_${i}`,
  };
}

function report(buckets: PullRequestBucket[]): PullRequestReport {
  return { target: "src/t.js", engine: "input", headSha: "a".repeat(40), baseRef: "main", baseSha: "b".repeat(40), campaignId: "c1", seconds: 5, executions: 12345, buckets };
}

test("token mode: in_progress -> progress -> completed(failure) with one annotation per new bucket, 50 per request", async () => {
  const gh = await startFakeGitHub({ token: "ghs_actions_token" });
  try {
    const github = createGitHubClient({ auth: { kind: "token", token: "ghs_actions_token" }, baseUrl: gh.url });
    let t = 0;
    const check = new CheckRun({ github, owner: "acme", repo: "widgets", headSha: "a".repeat(40), minProgressIntervalMs: 1000, now: () => t });
    await check.start();
    t = 500;
    assert.equal(await check.progress("too soon"), false);
    t = 1500;
    assert.equal(await check.progress("execs 1000"), true);
    const buckets = [...Array.from({ length: 120 }, (_, i) => bucket(i, "new")), bucket(200, "pre-existing"), bucket(201, "fixed")];
    await check.complete(report(buckets));
    assert.deepEqual(gh.invalid(), []);
    const seq = gh.requests.map((r) => `${r.operationId}:${(r.body as { status?: string }).status ?? "-"}:${(r.body as { conclusion?: string }).conclusion ?? "-"}:${(r.body as { output?: { annotations?: unknown[] } }).output?.annotations?.length ?? 0}`);
    assert.deepEqual(seq, ["checks/create:in_progress:-:0", "checks/update:in_progress:-:0", "checks/update:-:-:50", "checks/update:-:-:50", "checks/update:completed:failure:20"]);
    const anns = gh.requests.flatMap((r) => (r.body as { output?: { annotations?: { path: string; start_line: number; message: string }[] } }).output?.annotations ?? []);
    assert.equal(anns.length, 120);
    assert.deepEqual(anns[0], { ...anns[0], path: "src/t.js", start_line: 10 });
    assert.match(anns[0]!.message, /fuzzfarm repro b_0/);
    assert.ok(gh.requests.every((r) => r.auth === "token"));
  } finally {
    await gh.close();
  }
});

test("a request outside GitHub's spec is caught by the fake server (the validation can fail)", async () => {
  const gh = await startFakeGitHub({ token: "t0ken" });
  try {
    const github = createGitHubClient({ auth: { kind: "token", token: "t0ken" }, baseUrl: gh.url });
    await assert.rejects(github.request("POST /repos/{owner}/{repo}/check-runs", { owner: "o", repo: "r", name: "x", head_sha: "abc", status: "sleeping" as "queued" }));
    await assert.rejects(github.request("POST /repos/{owner}/{repo}/check-runz", { owner: "o", repo: "r" }));
    assert.equal(gh.invalid().length, 2);
    assert.match(gh.invalid()[0]!.errors.join(), /status must be equal to one of the allowed values/);
  } finally {
    await gh.close();
  }
});

test("App mode on a GitHub Enterprise Server base URL: JWT -> installation token -> check run; success when nothing is new", async () => {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const gh = await startFakeGitHub({ spec: "ghes-3.19", pathPrefix: "/api/v3", app: { appId: 4242, publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(), installationId: 77 } });
  try {
    const start = pullRequestChecks({
      client: { auth: { kind: "app", appId: 4242, privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString() }, baseUrl: gh.url },
      minProgressIntervalMs: 0,
      runner: async (_req, progress) => {
        progress("execs 10");
        return { campaignId: "camp-1", done: new Promise((r) => setTimeout(() => r(report([bucket(1, "pre-existing"), bucket(2, "fixed")])), 50)) };
      },
    });
    const payload = { action: "synchronize", number: 7, pull_request: { number: 7, head: { sha: "c".repeat(40), ref: "feature" }, base: { ref: "main" } }, repository: { name: "widgets", owner: { login: "acme" }, clone_url: "https://ghe.invalid/acme/widgets.git" } };
    const req = checkRequestOf("pull_request", payload);
    assert.ok(req);
    const started = await start(req);
    await started.finished;
    assert.deepEqual(gh.invalid(), []);
    assert.deepEqual(
      gh.requests.map((r) => `${r.operationId}/${r.auth}`),
      ["apps/get-repo-installation/app-jwt", "apps/create-installation-access-token/app-jwt", "checks/create/installation", "checks/update/installation", "checks/update/installation"],
    );
    const last = gh.requests.at(-1)!.body as { status: string; conclusion: string; output: { summary: string; annotations?: unknown[] } };
    assert.equal(last.conclusion, "success");
    assert.equal(last.output.annotations, undefined);
    assert.match(last.output.summary, /\| \*\*pre-existing\*\* \|/);
    assert.match(last.output.summary, /\| \*\*fixed\*\* \|/);
  } finally {
    await gh.close();
  }
});

test("SARIF: valid against the SARIF 2.1.0 schema, one result per new bucket at its top frame", () => {
  const log = toSarif(report([bucket(1, "new"), bucket(2, "pre-existing"), bucket(3, "new")]));
  assert.deepEqual(sarifErrors(log), []);
  const results = (log.runs as { results: { locations: { physicalLocation: { region: { startLine: number } } }[] }[] }[])[0]!.results;
  assert.deepEqual(results.map((r) => r.locations[0]!.physicalLocation.region.startLine), [11, 13]);
  assert.notDeepEqual(sarifErrors({ version: "2.1.0", runs: [{ tool: {} }] }), []);
});

test("webhook signatures: the right HMAC passes; a wrong secret, a changed body or a missing header fail", async () => {
  const body = JSON.stringify({ action: "opened" });
  const sig = `sha256=${createHmac("sha256", "s3cret").update(body).digest("hex")}`;
  assert.equal(await verifyWebhookSignature("s3cret", body, sig), true);
  assert.equal(await verifyWebhookSignature("other", body, sig), false);
  assert.equal(await verifyWebhookSignature("s3cret", `${body} `, sig), false);
  assert.equal(await verifyWebhookSignature("s3cret", body, undefined), false);
  assert.equal(await verifyWebhookSignature("s3cret", body, "sha1=abc"), false);
  assert.equal(checkRequestOf("pull_request", { action: "closed", repository: { name: "r", owner: { login: "o" } }, pull_request: { head: { sha: "x" } } }), null);
  assert.equal(checkRequestOf("check_suite", { action: "rerequested", repository: { name: "r", owner: { login: "o" } }, check_suite: { head_sha: "abc", head_branch: "f", pull_requests: [{ number: 3, base: { ref: "dev" } }] } })?.baseRef, "dev");
});
