// `fuzzfarm ci --farm URL`: the pull-request scenario of ci.test.ts (base
// has bug A, head adds bug B), with the campaign on a running farm: a real
// coordinator + dashboard process (apps/coordinator) and a real worker,
// both on Redis and PostgreSQL, driven only through the dashboard's CI API.
// The CLI gets no database or Redis of its own (its URLs point nowhere), so
// it cannot have run the campaign itself. Then the one-line errors: a wrong
// token (401, no campaign started), an unreachable farm, a target outside
// the farm's target roots, a campaign whose every job failed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { readHeartbeats } from "@fuzzfarm/queue";
import { sarifErrors, startFakeGitHub, type RecordedRequest } from "@fuzzfarm/github/testing";
import { REPO, killAndWait, runCli, spawnWorker, testFarm, waitUntil } from "./helpers";
import { BUG_A, BUG_A_AND_B, lineOf, pullRequestRepo, repoWith } from "./pull-request-repo";

const COORDINATOR = fileURLToPath(new URL("../../coordinator/src/main.ts", import.meta.url));
const ADMIN = "admin-token-farm-0123456789";
const CI = "ci-token-farm-0123456789abcd";

/** apps/coordinator (coordinator + dashboard) on an ephemeral port; resolves with its URL. */
function startCoordinatorProcess(env: NodeJS.ProcessEnv) {
  const p = spawn(process.execPath, ["--import", "tsx", COORDINATOR], { env, cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
  const log: string[] = [];
  p.stderr.setEncoding("utf8");
  const url = new Promise<string>((resolve, reject) => {
    p.stderr.on("data", (d: string) => {
      log.push(...d.split("\n").filter(Boolean));
      const m = /dashboard on (http:\/\/\S+)/.exec(log.join("\n"));
      if (m) resolve(m[1]!);
    });
    p.on("exit", (code) => reject(new Error(`coordinator exited ${code}: ${log.join("\n")}`)));
  });
  return { proc: p, url, log };
}

/** A loopback port nothing listens on (one the OS just handed out and took back). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

type Body = { status?: string; conclusion?: string; output?: { annotations?: { path: string; start_line: number; message: string }[] } };

test("ci --farm: the campaign runs on a running farm through its CI API; same verdict, SARIF and check run as local mode; one-line errors", async () => {
  const farm = await testFarm();
  const gh = await startFakeGitHub({ token: "ghs_test_actions_token" });
  const dir = await mkdtemp(join(tmpdir(), "ffci-farm-repo-"));
  const outside = await mkdtemp(join(tmpdir(), "ffci-farm-outside-"));
  const dataDir = await mkdtemp(join(tmpdir(), "ffci-farm-data-"));
  const farmEnv = { ...farm.env, FUZZFARM_ADMIN_TOKEN: ADMIN, FUZZFARM_CI_TOKEN: CI, FUZZFARM_TARGET_ROOTS: dir, FUZZFARM_HTTP_PORT: "0", FUZZFARM_DATA_DIR: dataDir };
  const coordinator = startCoordinatorProcess(farmEnv);
  const worker = spawnWorker(farmEnv);
  try {
    await pullRequestRepo(dir, { "broken.js": "export const notAFuzzTarget = 1;\n" });
    await repoWith(outside, [["elsewhere", { "package.json": '{"type":"module"}\n', "decoder.js": BUG_A }]]);
    const url = await coordinator.url;
    await waitUntil(async () => (await readHeartbeats(farm.queues.connection, farm.prefix, 15_000)).length > 0, 60_000, "the farm's worker");

    // The client has no services of its own: only the farm URL and the CI token (from the environment).
    const client = {
      ...process.env,
      FUZZFARM_REDIS_URL: "redis://127.0.0.1:1",
      FUZZFARM_DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none",
      FUZZFARM_CI_TOKEN: CI,
      GITHUB_TOKEN: "ghs_test_actions_token",
      GITHUB_EVENT_PATH: "",
      GITHUB_BASE_REF: "",
      GITHUB_STEP_SUMMARY: "",
    };
    const common = ["--farm", url, "--base-ref", "HEAD~1", "--replays", "1"];

    // A wrong token: one line, 401's code, and no campaign on the farm.
    const bad = await runCli(["ci", "--target", join(dir, "decoder.js"), ...common, "--time", "5s", "--token", "wrong-token-0123456789abcdef"], client, 60_000);
    assert.equal(bad.code, 2, bad.stderr);
    assert.deepEqual(bad.stderr.trim().split("\n"), [`fuzzfarm: FF_ERR_UNAUTHORIZED: farm ${url}: invalid token`]);
    assert.equal(await farm.db.prisma.campaign.count(), 0);

    const r = await runCli(
      ["ci", "--target", join(dir, "decoder.js"), ...common, "--time", "12s", "--job-seconds", "4s", "--sarif", join(dir, "out.sarif"), "--summary", join(dir, "out.md"),
        "--check", "--check-interval", "1s", "--repository", "acme/decoder", "--github-api-url", gh.url],
      client,
      120_000,
    );
    assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
    const lines = r.stdout.trim().split("\n");
    assert.equal(lines.at(-1), "1 new, 1 pre-existing, 0 fixed, 0 unreproduced", `${r.stdout}\n${r.stderr.slice(-3000)}`);
    assert.match(lines.find((l) => l.startsWith("NEW "))!, /checkTail.*reproduce: fuzzfarm repro b_\S+ \(on the farm; http:/);
    assert.match(lines.find((l) => l.startsWith("PRE-EXISTING "))!, /in fuzz/);
    // The campaign is the farm's: its coordinator ran it, for the path the CI job sent.
    const camps = await farm.db.prisma.campaign.findMany({ include: { target: true } });
    assert.equal(camps.length, 1);
    assert.equal(camps[0]!.target.path, join(dir, "decoder.js"));
    assert.equal(camps[0]!.status, "completed");
    assert.ok(coordinator.log.some((l) => l.includes(`campaign ${camps[0]!.id} started`)), coordinator.log.join("\n"));
    assert.match(r.stderr, new RegExp(`^campaign ${camps[0]!.id}: input engine on decoder.js .* on ${url.replace(/[.]/g, "\\.")}; base HEAD~1`, "m"));

    const sarif = JSON.parse(await readFile(join(dir, "out.sarif"), "utf8"));
    assert.deepEqual(sarifErrors(sarif), []);
    assert.equal(sarif.runs[0].results.length, 1);
    const loc = sarif.runs[0].results[0].locations[0].physicalLocation;
    assert.equal(loc.artifactLocation.uri, "decoder.js");
    assert.equal(loc.region.startLine, lineOf(BUG_A_AND_B, "bug B"));
    assert.match(await readFile(join(dir, "out.md"), "utf8"), /1 new, 1 pre-existing, 0 fixed/);

    assert.deepEqual(gh.invalid(), []);
    assert.equal(gh.requests[0]!.operationId, "checks/create");
    assert.equal((gh.requests[0]!.body as Body).status, "in_progress");
    const done = gh.requests.at(-1)!.body as Body;
    assert.equal(done.conclusion, "failure");
    assert.equal(done.output?.annotations?.length, 1);
    assert.equal(done.output!.annotations![0]!.start_line, lineOf(BUG_A_AND_B, "bug B"));
    assert.ok(gh.requests.slice(1, -1).some((q: RecordedRequest) => (q.body as Body).status === "in_progress"), "progress updates");

    // Unreachable farm, a target outside the farm's roots, a campaign that fails: one line each.
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const down = await runCli(["ci", "--target", join(dir, "decoder.js"), "--farm", nowhere, "--base-ref", "HEAD~1", "--time", "5s"], client, 60_000);
    assert.equal(down.code, 2);
    assert.deepEqual(down.stderr.trim().split("\n"), [`fuzzfarm: FF_ERR_FARM_UNREACHABLE: farm ${nowhere} unreachable: ECONNREFUSED`]);
    const out = await runCli(["ci", "--target", join(outside, "decoder.js"), "--farm", url, "--base-ref", "HEAD", "--time", "5s"], client, 60_000);
    assert.equal(out.code, 2);
    assert.deepEqual(out.stderr.trim().split("\n"), [`fuzzfarm: FF_ERR_FORBIDDEN: farm ${url}: target ${join(outside, "decoder.js")} is outside the farm's target roots (${dir})`]);
    assert.equal(await farm.db.prisma.campaign.count(), 1);
    const failed = await runCli(["ci", "--target", join(dir, "broken.js"), "--engine", "input", ...common, "--time", "2s", "--job-seconds", "1s"], client, 60_000);
    assert.equal(failed.code, 2, failed.stderr);
    const last = failed.stderr.trim().split("\n").at(-1)!;
    assert.match(last, /^fuzzfarm: FF_ERR_CAMPAIGN_FAILED: campaign \S+ failed: \d+ of \d+ jobs failed: /);
  } finally {
    await killAndWait(worker);
    await killAndWait(coordinator.proc);
    await gh.close();
    for (const d of [dir, outside, dataDir]) await rm(d, { recursive: true, force: true });
    await farm.close();
  }
});
