// `fuzzfarm ci` on a pull request, end to end: a git repository in a temp
// dir whose base has one bug and whose head adds a second; the real CLI runs
// a campaign (real workers, Redis, PostgreSQL), replays on head and base,
// writes SARIF (validated against the SARIF 2.1.0 schema) and a summary, and
// reports a check run to a local server that plays the GitHub API and
// validates every request against GitHub's OpenAPI description.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sarifErrors, startFakeGitHub, type RecordedRequest } from "@fuzzfarm/github/testing";
import { runCli, testFarm } from "./helpers";
import { BUG_A_AND_B, ONLY_B, git, lineOf, pullRequestRepo } from "./pull-request-repo";

type Body = { status?: string; conclusion?: string; head_sha?: string; output?: { summary?: string; annotations?: { path: string; start_line: number; message: string }[] } };
const body = (r: RecordedRequest) => r.body as Body;

test("ci on a pull request: one new bucket (fails, annotated, in SARIF) and one pre-existing; then a PR that fixes the old bug", async () => {
  const farm = await testFarm();
  const gh = await startFakeGitHub({ token: "ghs_test_actions_token" });
  const dir = await mkdtemp(join(tmpdir(), "ffci-repo-"));
  try {
    await pullRequestRepo(dir);
    const headSha = git(dir, "rev-parse", "HEAD");
    const stepSummary = join(dir, "..", `${dir.split("/").pop()}-step-summary.md`);
    const env = { ...farm.env, GITHUB_TOKEN: "ghs_test_actions_token", GITHUB_STEP_SUMMARY: stepSummary, GITHUB_EVENT_PATH: "", GITHUB_BASE_REF: "" };
    const common = ["--target", join(dir, "decoder.js"), "--workers", "1", "--replays", "1", "--check", "--check-interval", "1s", "--repository", "acme/decoder", "--github-api-url", gh.url];

    const r = await runCli(["ci", ...common, "--time", "15s", "--job-seconds", "7s", "--base-ref", "HEAD~1", "--sarif", join(dir, "out.sarif"), "--summary", join(dir, "out.md")], env, 240_000);
    assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
    const lines = r.stdout.trim().split("\n");
    assert.equal(lines.filter((l) => l.startsWith("NEW ")).length, 1, r.stdout);
    assert.equal(lines.filter((l) => l.startsWith("PRE-EXISTING ")).length, 1, r.stdout);
    assert.match(lines.find((l) => l.startsWith("NEW "))!, /checkTail/);
    assert.match(lines.find((l) => l.startsWith("PRE-EXISTING "))!, /in fuzz/);
    assert.equal(lines.at(-1), "1 new, 1 pre-existing, 0 fixed, 0 unreproduced");

    // SARIF: schema-valid, one result, at bug B's throw in the repository.
    const sarif = JSON.parse(await readFile(join(dir, "out.sarif"), "utf8"));
    assert.deepEqual(sarifErrors(sarif), []);
    assert.equal(sarif.runs[0].results.length, 1);
    const loc = sarif.runs[0].results[0].locations[0].physicalLocation;
    assert.equal(loc.artifactLocation.uri, "decoder.js");
    assert.equal(loc.region.startLine, lineOf(BUG_A_AND_B, "bug B"));

    // Summary: the file and $GITHUB_STEP_SUMMARY.
    const md = await readFile(join(dir, "out.md"), "utf8");
    assert.match(md, /1 new, 1 pre-existing, 0 fixed/);
    assert.equal(await readFile(stepSummary, "utf8"), md);

    // The check run: every request valid; in_progress -> progress updates -> completed(failure) with one annotation.
    assert.deepEqual(gh.invalid(), []);
    const first = gh.requests[0]!;
    assert.equal(first.operationId, "checks/create");
    assert.equal(body(first).status, "in_progress");
    assert.equal(body(first).head_sha, headSha);
    const updates = gh.requests.slice(1);
    assert.ok(updates.every((u) => u.operationId === "checks/update" && u.params.check_run_id === "1000"));
    assert.ok(updates.slice(0, -1).length >= 2, `progress updates: ${updates.length - 1}`);
    assert.ok(updates.slice(0, -1).every((u) => body(u).status === "in_progress" && !body(u).output?.annotations));
    const done = body(updates.at(-1)!);
    assert.equal(done.status, "completed");
    assert.equal(done.conclusion, "failure");
    assert.equal(done.output?.annotations?.length, 1);
    const ann = done.output!.annotations![0]!;
    assert.equal(ann.path, "decoder.js");
    assert.equal(ann.start_line, lineOf(BUG_A_AND_B, "bug B"));
    assert.match(ann.message, /bug B: B second[\s\S]*Reproduce: npx fuzzfarm repro \.fuzzfarm-state\/reproducers\/s_[0-9a-f]{16}\.json/);
    assert.match(done.output!.summary!, /\| \*\*new\*\* \| `uncaught TypeError in checkTail/);
    assert.match(done.output!.summary!, /\| \*\*pre-existing\*\* \| `uncaught Error in fuzz/);

    // A second pull request on top of it fixes bug A: the farm's known bucket of A replays on the
    // base (HEAD~1 now has A and B) but not on the head -> fixed; B stays pre-existing; exit 0, success.
    await writeFile(join(dir, "decoder.js"), ONLY_B);
    git(dir, "commit", "-q", "-am", "fix bug A");
    const n = gh.requests.length;
    // 10 s: a 5 s time box could end before the executor started on a loaded machine, and 0 executions is an error now
    const r2 = await runCli(["ci", ...common, "--time", "10s", "--job-seconds", "4s", "--base-ref", "HEAD~1"], env, 240_000);
    assert.equal(r2.code, 0, `${r2.stdout}\n${r2.stderr}`);
    assert.equal(r2.stdout.trim().split("\n").at(-1), "0 new, 1 pre-existing, 1 fixed, 0 unreproduced", `${r2.stdout}\n${r2.stderr.slice(-3000)}`);
    const done2 = body(gh.requests.at(-1)!);
    assert.equal(gh.requests[n]!.operationId, "checks/create");
    assert.equal(done2.conclusion, "success");
    assert.equal(done2.output?.annotations, undefined);
    assert.deepEqual(gh.invalid(), []);
    assert.match(git(dir, "worktree", "list"), /^\S+\s+\S+ \[main\]$/);
  } finally {
    await gh.close();
    await rm(dir, { recursive: true, force: true });
    await rm(`${dir}-step-summary.md`, { force: true });
    await farm.close();
  }
});
