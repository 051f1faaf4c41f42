// GitHub App mode end to end: the coordinator's webhook endpoint (the real
// fastify app, real Redis and PostgreSQL) receives signed deliveries; bad,
// missing and replayed signatures get 401 and start nothing; a pull_request
// delivery fetches the repository, runs `fuzzfarm ci` (real campaign, real
// workers) and reports a check run, as the App (JWT -> installation token),
// to a local server that plays GitHub and validates every request against
// GitHub's OpenAPI description.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHmac, generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDb } from "@fuzzfarm/db";
import { createTestDatabase } from "@fuzzfarm/db/testing";
import { openQueues } from "@fuzzfarm/queue";
import { buildApp } from "@fuzzfarm/web";
import { startFakeGitHub } from "@fuzzfarm/github/testing";
import { githubAppFromEnv } from "../src/github-app";

const REDIS_URL = process.env.FUZZFARM_REDIS_URL ?? "redis://127.0.0.1:6379";

const BASE = `export function fuzz(data) {
  if (data.length > 0 && data[0] === 0x41) throw new Error("bug A: leading A");
}
`;
const HEAD = `export function fuzz(data) {
  if (data.length > 0 && data[0] === 0x41) throw new Error("bug A: leading A");
  tail(data);
}
function tail(data) {
  if (data.length > 1 && data[1] === 0x42) throw new TypeError("bug B: B second");
}
`;

function git(dir: string, ...args: string[]) {
  const r = spawnSync("git", ["-C", dir, ...args], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

test("webhook: bad / missing / replayed signatures get 401 and start nothing; a pull_request starts one campaign reported as a check run", async () => {
  const database = await createTestDatabase();
  const prefix = `ffgh-${randomBytes(4).toString("hex")}`;
  const jobKey = randomBytes(32).toString("base64url");
  const db = createDb({ url: database.url });
  const queues = openQueues({ url: REDIS_URL, prefix, jobKey });
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const gh = await startFakeGitHub({ app: { appId: 31337, publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(), installationId: 555 } });
  const work = await mkdtemp(join(tmpdir(), "ffgh-"));
  const origin = join(work, "origin");
  const secret = "webhook-secret-for-tests";
  try {
    git(work, "init", "-q", "-b", "main", origin);
    git(origin, "config", "user.email", "ci@example.invalid");
    git(origin, "config", "user.name", "ci");
    await writeFile(join(origin, "package.json"), '{"type":"module"}\n');
    await writeFile(join(origin, "decoder.js"), BASE);
    git(origin, "add", "package.json", "decoder.js");
    git(origin, "commit", "-q", "-m", "base");
    git(origin, "checkout", "-q", "-b", "feature");
    await writeFile(join(origin, "decoder.js"), HEAD);
    git(origin, "commit", "-q", "-am", "head adds bug B");
    const headSha = git(origin, "rev-parse", "HEAD");

    const log: string[] = [];
    const env = {
      ...process.env,
      FUZZFARM_DATABASE_URL: database.url,
      FUZZFARM_REDIS_URL: REDIS_URL,
      FUZZFARM_QUEUE_PREFIX: prefix,
      FUZZFARM_JOB_KEY: jobKey,
      FUZZFARM_SKIP_SELFTEST: "1",
      FUZZFARM_GITHUB_APP_ID: "31337",
      FUZZFARM_GITHUB_APP_PRIVATE_KEY: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      FUZZFARM_GITHUB_WEBHOOK_SECRET: secret,
      FUZZFARM_GITHUB_TARGET: "decoder.js",
      FUZZFARM_GITHUB_TIME: "15s",
      FUZZFARM_GITHUB_JOB_SECONDS: "7s",
      FUZZFARM_GITHUB_API_URL: gh.url,
      FUZZFARM_GITHUB_WORKDIR: join(work, "farm"),
    };
    const github = githubAppFromEnv(env, work, (l) => log.push(l));
    const app = await buildApp({ db, queues, redisUrl: REDIS_URL, prefix, adminToken: randomBytes(18).toString("base64url"), dataDir: work, github });
    try {
      const payload = JSON.stringify({
        action: "synchronize",
        number: 12,
        pull_request: { number: 12, head: { sha: headSha, ref: "feature" }, base: { ref: "main" } },
        repository: { name: "decoder", owner: { login: "acme" }, clone_url: origin, default_branch: "main" },
        installation: { id: 555 },
      });
      const sign = (body: string, key = secret) => `sha256=${createHmac("sha256", key).update(body).digest("hex")}`;
      const post = (headers: Record<string, string>, body = payload) =>
        app.inject({ method: "POST", url: "/api/github/webhook", payload: body, headers: { "content-type": "application/json", "x-github-event": "pull_request", ...headers } });

      const wrong = await post({ "x-github-delivery": "d-1", "x-hub-signature-256": sign(payload, "not-the-secret") });
      assert.equal(wrong.statusCode, 401);
      assert.equal(wrong.json().error.code, "FF_ERR_UNAUTHORIZED");
      const missing = await post({ "x-github-delivery": "d-1" });
      assert.equal(missing.statusCode, 401);
      const tampered = await post({ "x-github-delivery": "d-1", "x-hub-signature-256": sign(payload) }, payload.replace("synchronize", "opened "));
      assert.equal(tampered.statusCode, 401);
      assert.equal(await db.prisma.campaign.count(), 0);
      assert.equal(gh.requests.length, 0);

      const ok = await post({ "x-github-delivery": "d-1", "x-hub-signature-256": sign(payload) });
      assert.equal(ok.statusCode, 202, `${ok.body}\n${log.join("\n")}`);
      const campaignId = ok.json().campaignId as string;
      assert.ok(campaignId);
      const replay = await post({ "x-github-delivery": "d-1", "x-hub-signature-256": sign(payload) });
      assert.equal(replay.statusCode, 401);
      assert.match(replay.json().error.message, /already received/);
      assert.deepEqual((await db.prisma.campaign.findMany({ select: { id: true } })).map((c) => c.id), [campaignId]);

      // An event that starts nothing is acknowledged and starts nothing.
      const closed = payload.replace("synchronize", "closed");
      const ignored = await post({ "x-github-delivery": "d-2", "x-hub-signature-256": sign(closed) }, closed);
      assert.equal(ignored.statusCode, 202);
      assert.equal(ignored.json().started, false);

      const until = Date.now() + 180_000;
      while (Date.now() < until && !gh.requests.some((r) => (r.body as { status?: string } | undefined)?.status === "completed")) await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(gh.invalid(), []);
      const ops = gh.requests.map((r) => `${r.operationId}/${r.auth}`);
      assert.equal(ops[0], "apps/create-installation-access-token/app-jwt");
      assert.equal(ops[1], "checks/create/installation");
      assert.ok(ops.slice(2).every((o) => o === "checks/update/installation"), ops.join());
      assert.equal((gh.requests[1]!.body as { head_sha: string; status: string }).head_sha, headSha);
      const done = gh.requests.at(-1)!.body as { status: string; conclusion: string; output: { summary: string; annotations: { path: string; start_line: number }[] } };
      assert.equal(done.status, "completed", log.join("\n"));
      assert.equal(done.conclusion, "failure", `${JSON.stringify(done.output)}\n${log.join("\n")}`);
      assert.deepEqual(done.output.annotations.map((a) => `${a.path}:${a.start_line}`), ["decoder.js:6"]);
      assert.match(done.output.summary, /1 new, 1 pre-existing, 0 fixed/);
      assert.equal(await db.prisma.campaign.count(), 1);
    } finally {
      await app.close();
    }
  } finally {
    await gh.close();
    await queues.close().catch(() => {});
    await db.close().catch(() => {});
    await rm(work, { recursive: true, force: true });
    await database.drop();
  }
});
