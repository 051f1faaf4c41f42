// The job key file and the dashboard's exposure rules.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dashboardExposure, resolveJobKey } from "../src/index";

test("resolveJobKey: the configured key wins; else one key file, created once with mode 0600", () => {
  const dir = mkdtempSync(join(tmpdir(), "ff-key-"));
  try {
    assert.equal(resolveJobKey({ jobKey: "k".repeat(40), dataDir: dir }), "k".repeat(40));
    const a = resolveJobKey({ dataDir: join(dir, "data") });
    const b = resolveJobKey({ dataDir: join(dir, "data") });
    assert.equal(a, b);
    assert.ok(a.length >= 40);
    assert.equal(readFileSync(join(dir, "data", "job-key"), "utf8").trim(), a);
    assert.equal(statSync(join(dir, "data", "job-key")).mode & 0o777, 0o600);
    assert.notEqual(resolveJobKey({ dataDir: join(dir, "other") }), a, "another data directory gets its own key");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("dashboardExposure: reads need a login off loopback; the bind address joins the Host allow-list", () => {
  assert.deepEqual(dashboardExposure({ httpHost: "127.0.0.1", allowedHosts: [] }), { allowedHosts: ["127.0.0.1"], requireAuthForReads: false });
  assert.deepEqual(dashboardExposure({ httpHost: "::1", allowedHosts: [] }).requireAuthForReads, false);
  assert.deepEqual(dashboardExposure({ httpHost: "0.0.0.0", allowedHosts: ["farm.example"] }), { allowedHosts: ["farm.example"], requireAuthForReads: true });
  assert.deepEqual(dashboardExposure({ httpHost: "10.1.2.3", allowedHosts: [] }), { allowedHosts: ["10.1.2.3"], requireAuthForReads: true });
});

test("NAME_FILE reads a value from a file (secrets), beats NAME, and a missing file is one clear error", async () => {
  const { loadConfig } = await import("../src/index");
  const dir = mkdtempSync(join(tmpdir(), "ff-secret-"));
  try {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(dir, "redis-url"), "redis://worker:s3cret@redis:6379\n");
    writeFileSync(join(dir, "key"), "k".repeat(44) + "\n");
    const c = loadConfig({ cwd: dir, env: { FUZZFARM_REDIS_URL: "redis://plain:6379", FUZZFARM_REDIS_URL_FILE: join(dir, "redis-url"), FUZZFARM_JOB_KEY_FILE: "key" } });
    assert.equal(c.redisUrl, "redis://worker:s3cret@redis:6379");
    assert.equal(c.jobKey, "k".repeat(44));
    assert.throws(() => loadConfig({ cwd: dir, env: { FUZZFARM_ADMIN_TOKEN_FILE: "/nope/token" } }), /FUZZFARM_ADMIN_TOKEN_FILE: cannot read \/nope\/token: ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
