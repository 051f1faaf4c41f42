// Issue 21 item 3: `fuzzfarm ci` runs a pull request's code, so that code
// must see none of the CI job's secrets. The target here crashes with its
// whole environment and what it read of the job key file in its message;
// the real CLI fuzzes it (local workers) and replays it on head and base.
// What the replays saw comes back as the bucket's message in the output:
// the allow-listed names (PATH, the one the config names) are there, the
// farm's secrets (database URL, job key, admin token), GitHub's token and an
// unrelated secret of the job are not, anywhere in what the command wrote.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, testFarm } from "./helpers";
import { repoWith } from "./pull-request-repo";

const LEAKY = `const { readFileSync } = require("node:fs");
const { join } = require("node:path");
// Prints what it can get: its environment and the farm's job key file beside it.
exports.fuzz = function fuzz(data) {
  if (data.length > 0 && data[0] === 0x41) {
    let key;
    try {
      key = readFileSync(join(__dirname, ".fuzzfarm", "job-key"), "utf8").trim();
    } catch (e) {
      key = "unreadable:" + e.code;
    }
    throw new Error("leak " + JSON.stringify(process.env) + " key=" + key + " END");
  }
};
`;

test("ci: the pull request's code runs sandboxed with an allow-listed environment and gets none of the farm's secrets", { timeout: 240_000 }, async () => {
  const adminToken = `admin-${"a".repeat(24)}`;
  const foreign = `aws-secret-${Date.now()}`;
  const farm = await testFarm({ FUZZFARM_ADMIN_TOKEN: adminToken });
  const dir = await mkdtemp(join(tmpdir(), "ffci-secrets-"));
  try {
    await repoWith(dir, [
      ["base: the leaky target", { "package.json": '{"name":"leaky"}\n', "leaky.js": LEAKY, ".gitignore": ".fuzzfarm/\nout.*\n" }],
      ["head: unchanged target, a readme", { "README.md": "pr\n" }],
    ]);
    // The data directory where a CI job keeps it (the checkout's .fuzzfarm), holding the job key file.
    await mkdir(join(dir, ".fuzzfarm"), { recursive: true });
    await writeFile(join(dir, ".fuzzfarm", "job-key"), `${farm.env.FUZZFARM_JOB_KEY}\n`, { mode: 0o600 });
    const env = {
      ...farm.env,
      FUZZFARM_DATA_DIR: join(dir, ".fuzzfarm"),
      GITHUB_TOKEN: "ghs_secret_actions_token_0123456789",
      AWS_SECRET_ACCESS_KEY: foreign,
      FF_TARGET_GREETING: "hello-target",
      FUZZFARM_TARGET_ENV: "FF_TARGET_GREETING",
      GITHUB_EVENT_PATH: "",
      GITHUB_BASE_REF: "",
    };
    const args = ["ci", "--target", join(dir, "leaky.js"), "--workers", "1", "--replays", "1", "--time", "8s", "--job-seconds", "4s", "--base-ref", "HEAD~1"];
    const r = await runCli([...args, "--json", "--sarif", join(dir, "out.sarif"), "--summary", join(dir, "out.md")], env, 180_000);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr.slice(-3000)}`);
    const report = JSON.parse(r.stdout) as { buckets: { class: string; message: string; head: { hits: number }; base: { hits: number } }[] };
    assert.equal(report.buckets.length, 1, r.stdout);
    const b = report.buckets[0]!;
    assert.equal(b.class, "pre-existing", r.stdout);
    // What the replayed target saw, in full (the END marker after the key).
    process.stdout.write(`the target printed: ${b.message}\n`);
    const m = /^leak (\{.*\}) key=(.*) END$/s.exec(b.message);
    assert.ok(m, b.message);
    const seen = JSON.parse(m[1]!) as Record<string, string>;
    assert.equal(seen.FF_TARGET_GREETING, "hello-target");
    assert.ok(seen.PATH, "PATH is passed on");
    assert.deepEqual(
      Object.keys(seen).filter((k) => !["PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TERM", "FF_TARGET_GREETING"].includes(k) && !k.startsWith("LC_")),
      // what the engines add themselves (the input engine's harness none; the node engine its config file), and
      // PWD, which bubblewrap sets to the directory it starts the target in
      Object.keys(seen).filter((k) => k === "FUZZFARM_NODE" || k === "UV_THREADPOOL_SIZE" || k === "PWD"),
      `only allow-listed names: ${Object.keys(seen).join(", ")}`,
    );
    assert.match(m[2]!, /^unreadable:/, "the job key file is hidden");
    const written = [r.stdout, await readFile(join(dir, "out.sarif"), "utf8"), await readFile(join(dir, "out.md"), "utf8")].join("\n");
    for (const secret of [farm.env.FUZZFARM_JOB_KEY!, farm.databaseUrl.split("/").pop()!, adminToken, "ghs_secret_actions_token", foreign])
      assert.ok(!b.message.includes(secret) && !written.includes(secret), `a secret reached the target: ${secret.slice(0, 12)}...`);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await farm.close();
  }
});
