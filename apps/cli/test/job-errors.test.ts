// A target that throws while loading cannot be fuzzed: the first job's
// target error ends the campaign "failed" (the coordinator's job error
// handlers), long before its time box, and `fuzzfarm fuzz` exits 2 with one
// line naming the error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, testFarm } from "./helpers";

test("fuzz on a target that throws at load: failed within seconds of its 20 s time box, exit 2, one line with the reason", async () => {
  const farm = await testFarm();
  const dir = mkdtempSync(join(tmpdir(), "ff-throws-"));
  try {
    const target = join(dir, "throws-at-load.cjs");
    writeFileSync(target, 'throw new Error("config.json is missing");\nmodule.exports = { fuzz() {} };\n');
    const r = await runCli(["fuzz", target, "--time", "20s", "--workers", "1", "--json"], farm.env, 180_000);
    assert.equal(r.code, 2, r.stderr.slice(-1500));
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("fuzzfarm:"));
    assert.equal(lines.length, 1, r.stderr.slice(-1500));
    assert.match(lines[0]!, /^fuzzfarm: FF_ERR_CAMPAIGN_FAILED: campaign \S+ failed: \d+ of \d+ jobs failed: target-invalid: .*config\.json is missing/);
    const s = JSON.parse(r.stdout);
    assert.equal(s.status, "failed");
    assert.ok(s.seconds < 15, `ended by the target error, not its time box: ${s.seconds} s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await farm.close();
  }
});
