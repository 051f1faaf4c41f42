// What a target or an anonymous client controls, against the real app (real
// PostgreSQL, Redis, files and HTTP sockets): file names in a coverage map,
// GitHub webhook bodies, and query strings. Each test is an attack that
// worked before its boundary was closed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { randomBytes } from "node:crypto";
import { buildApp } from "../src/index";
import { startFarm, seedCampaign, runJob, ADMIN, REDIS_URL, type Farm } from "./helpers";

let farm: Farm;
before(async () => {
  farm = await startFarm();
});
after(async () => {
  await farm.close();
});

/** An istanbul file coverage naming `path`, one covered statement per line 1..3. */
const fileCoverage = (path: string) => ({
  path,
  statementMap: Object.fromEntries([0, 1, 2].map((i) => [String(i), { start: { line: i + 1, column: 0 }, end: { line: i + 1, column: 5 } }])),
  fnMap: {},
  branchMap: {},
  s: { "0": 1, "1": 1, "2": 1 },
  f: {},
  b: {},
});

test("the coverage report shows the target's repository only: not the data directory, .git, a symlink out or a file outside", async () => {
  const repo = mkdtempSync(join(tmpdir(), "ff-cov-repo-"));
  const outside = mkdtempSync(join(tmpdir(), "ff-cov-out-"));
  const dataDir = join(repo, ".fuzzfarm"); // `fuzzfarm up` in a project: the data directory sits in the repository
  const key = `JOBKEY-${randomBytes(12).toString("hex")}`;
  const gitSecret = `GITTOKEN-${randomBytes(12).toString("hex")}`;
  const outSecret = `OUTSIDE-${randomBytes(12).toString("hex")}`;
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, "lib"));
  writeFileSync(join(dataDir, "job-key"), `${key}\n`, { mode: 0o600 });
  writeFileSync(join(repo, ".git", "config"), `[remote "origin"]\n  url = https://x:${gitSecret}@example.invalid/r.git\n`);
  writeFileSync(join(outside, "secret.js"), `const s = "${outSecret}";\n`);
  symlinkSync(join(outside, "secret.js"), join(repo, "link.js"));
  writeFileSync(join(repo, "fuzz.js"), "export function fuzz(d) {\n  return d;\n}\n");
  writeFileSync(join(repo, "lib", "util.js"), "export const shownLibLine = 1;\nexport const b = 2;\nexport const c = 3;\n");
  const app = await buildApp({ db: farm.db, queues: farm.queues, redisUrl: REDIS_URL, prefix: farm.prefix, adminToken: ADMIN, dataDir });
  try {
    const c = await seedCampaign(farm.db, { path: join(repo, "fuzz.js") });
    const names = [".fuzzfarm/job-key", join(dataDir, "job-key"), ".git/config", join(repo, ".git", "config"), "link.js", join(outside, "secret.js"), "lib/util.js"];
    await runJob(farm, c, { coverage: Object.fromEntries(names.map((n) => [n, fileCoverage(n)])) });
    assert.equal((await app.inject({ url: `/campaigns/${c.campaign.id}/coverage` })).statusCode, 200);
    const reports = join(dataDir, "coverage-reports");
    const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
    const pages = walk(reports).filter((f) => f.endsWith(".html"));
    let all = "";
    for (const f of pages) {
      const rel = relative(reports, f).split("/").slice(2).join("/");
      const r = await app.inject({ url: `/campaigns/${c.campaign.id}/coverage/report/${rel}` });
      assert.equal(r.statusCode, 200, rel);
      all += r.body;
    }
    for (const [what, secret] of [["the job key", key], ["a .git file", gitSecret], ["a file outside the repository", outSecret]] as const) assert.ok(!all.includes(secret), `the report shows ${what}`);
    assert.match(all, /shownLibLine/, "a file of the repository outside the target's own folder is shown");
    const placeholders = all.match(/source not shown: not in the target(&#39;|')s repository/g) ?? [];
    assert.equal(placeholders.length, names.length - 1, `each of the ${names.length - 1} refused files says why`);
  } finally {
    await app.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});
