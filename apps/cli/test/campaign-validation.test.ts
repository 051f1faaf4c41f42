// A campaign that cannot fuzz is an error, not "no crashes found": bad flags
// and engine options are refused before anything is queued, and a campaign
// whose every job fails (garbage module, a target that exits while loading)
// ends "failed" with the commonest job error and exit code 2.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readHeartbeats } from "@fuzzfarm/queue";
import { fixture, runCli, testFarm } from "./helpers";

/** The first stderr line that is not commander's usage text. */
const errorLine = (stderr: string) => stderr.split("\n").find((l) => /^(fuzzfarm|error):/.test(l)) ?? "";

test("bad flags and engine options: exit 2 with one line naming the flag, before a campaign, job or worker exists", async () => {
  const farm = await testFarm();
  try {
    const target = fixture("quiet.js");
    const cases: [string[], RegExp][] = [
      [["--workers", "-1"], /--workers.*'-1' is invalid/],
      [["--workers", "abc"], /--workers.*'abc' is invalid/],
      [["--time", "0s"], /FF_ERR_CONFIG: --time must be more than 0s/],
      [["--time", "99999999999h"], /FF_ERR_CONFIG: --time must be at most/],
      [["--job-seconds", "soon"], /FF_ERR_CONFIG: --job-seconds bad duration/],
      [["-o", "timeoutMs=abc"], /FF_ERR_CONFIG: node engine: bad option timeoutMs/],
      [["-o", "strategy=nonsense"], /FF_ERR_CONFIG: node engine: bad option strategy/],
      // engine switches are typed options now (booleans), not 0/1 strategy parameters
      [["-o", "params.warm=0"], /FF_ERR_CONFIG: node engine: bad option params: warm, jobs, coverage, confirmRuns are options of their own/],
      [["-o", "warm=1"], /FF_ERR_CONFIG: node engine: bad option warm: .*expected boolean/],
    ];
    for (const [flags, expected] of cases) {
      const r = await runCli(["fuzz", target, "--engine", "node", "--workers", "1", ...flags], farm.env, 60_000);
      assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
      assert.match(errorLine(r.stderr), expected, flags.join(" "));
    }
    assert.equal(await farm.db.prisma.campaign.count(), 0, "no campaign was created");
    assert.equal(await farm.db.prisma.job.count(), 0, "no job was queued");
    assert.deepEqual(await readHeartbeats(farm.queues.connection, farm.prefix), [], "no local worker was left running");
  } finally {
    await farm.close();
  }
});

test("a campaign whose every job fails ends failed: exit 2 with the job error (garbage .wasm, a target that exits while loading)", async () => {
  const farm = await testFarm();
  const dir = mkdtempSync(join(tmpdir(), "ff-failed-"));
  try {
    writeFileSync(join(dir, "junk.wasm"), Buffer.from("this is not a wasm module, only text"));
    writeFileSync(join(dir, "exits.cjs"), "module.exports = { fuzz() {} };\nprocess.exit(3);\n");
    const cases: [string, RegExp][] = [
      ["junk.wasm", /target-invalid: invalid module .*junk\.wasm/],
      ["exits.cjs", /target-invalid: target ended while loading \(exit code 3\)/],
    ];
    for (const [file, expected] of cases) {
      const r = await runCli(["fuzz", join(dir, file), "--time", "3s", "--workers", "1", "--json"], farm.env, 180_000);
      assert.equal(r.code, 2, `${file}: ${r.stderr.slice(-1500)}`);
      const line = errorLine(r.stderr);
      assert.match(line, /^fuzzfarm: FF_ERR_CAMPAIGN_FAILED: campaign \S+ failed: \d+ of \d+ jobs failed: /, file);
      assert.match(line, expected, file);
      const s = JSON.parse(r.stdout);
      assert.equal(s.status, "failed", file);
    }
    // A campaign on a healthy target still completes (the check is not "no crash means failed").
    const ok = await runCli(["fuzz", fixture("quiet.js"), "--time", "3s", "--workers", "1", "--json"], farm.env, 180_000);
    assert.equal(ok.code, 0, ok.stderr.slice(-1500));
    assert.equal(JSON.parse(ok.stdout).status, "completed");
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await farm.close();
  }
});
