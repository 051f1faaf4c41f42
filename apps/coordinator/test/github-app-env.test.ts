// GitHub App mode hands a pull request's code to `fuzzfarm ci`: that child
// gets an environment built from an allow-list, never the coordinator's.
// A real child process prints what it received; the farm's config loader,
// run on that environment, still finds the farm (through 0600 files).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@fuzzfarm/config";
// by namespace: where ciChildEnv does not exist (before the allow-list) each test fails on its own
import * as githubApp from "../src/github-app";

const secret = (name: string) => `${name}-${randomBytes(9).toString("hex")}`;

function coordinatorEnv() {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: "/home/farm",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    FUZZFARM_QUEUE_PREFIX: "ffgh-env",
    FUZZFARM_ADMIN_TOKEN: secret("ADMIN"),
    FUZZFARM_WORKER_TOKEN: secret("WORKER"),
    FUZZFARM_CI_TOKEN: secret("CI"),
    FUZZFARM_JOB_KEY: `${secret("JOBKEY")}${"k".repeat(32)}`,
    FUZZFARM_DATABASE_URL: `postgresql://farm:${secret("PGPASS")}@127.0.0.1:5432/fuzzfarm`,
    FUZZFARM_REDIS_URL: `redis://:${secret("REDISPASS")}@127.0.0.1:6379`,
    FUZZFARM_GITHUB_APP_ID: "31337",
    FUZZFARM_GITHUB_APP_PRIVATE_KEY: secret("PEM"),
    FUZZFARM_GITHUB_WEBHOOK_SECRET: secret("HOOK"),
    GITHUB_TOKEN: secret("GHTOKEN"),
    AWS_SECRET_ACCESS_KEY: secret("AWS"),
    NODE_OPTIONS: "--require /tmp/evil.js",
    FUZZFARM_GITHUB_TARGET_ENV: "DECODER_MODE",
    DECODER_MODE: "strict",
  };
}

test("the `fuzzfarm ci` child of App mode gets PATH, HOME, locale, farm settings and what the target names; no secret value, no token", () => {
  const env = coordinatorEnv();
  const dataDir = mkdtempSync(join(tmpdir(), "ffgh-env-"));
  try {
    const child = githubApp.ciChildEnv(env, dataDir);
    const r = spawnSync(process.execPath, ["-e", "process.stdout.write(JSON.stringify(process.env))"], { env: child, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const seen = JSON.parse(r.stdout) as Record<string, string>;
    const printed = JSON.stringify(seen);
    const secrets = Object.entries(env).filter(([k]) => /TOKEN|KEY|SECRET|URL/.test(k) && k !== "FUZZFARM_GITHUB_TARGET_ENV");
    for (const [k, v] of secrets) assert.ok(!printed.includes(v), `${k}'s value reached the child`);
    for (const k of ["NODE_OPTIONS", "AWS_SECRET_ACCESS_KEY", "FUZZFARM_ADMIN_TOKEN", "FUZZFARM_CI_TOKEN", "FUZZFARM_WORKER_TOKEN", "GITHUB_TOKEN", "FUZZFARM_GITHUB_APP_ID"]) assert.equal(seen[k], undefined, k);
    assert.equal(seen.DECODER_MODE, "strict");
    assert.equal(seen.LANG, "C.UTF-8");
    assert.equal(seen.FUZZFARM_SANDBOX, "fs");
    // The child still joins the same farm: the loader reads the connection secrets from 0600 files.
    const config = loadConfig({ env: child, cwd: dataDir });
    assert.equal(config.databaseUrl, env.FUZZFARM_DATABASE_URL);
    assert.equal(config.jobKey, env.FUZZFARM_JOB_KEY);
    assert.equal(config.queuePrefix, "ffgh-env");
    assert.equal(config.adminToken, undefined);
    for (const k of ["FUZZFARM_DATABASE_URL_FILE", "FUZZFARM_REDIS_URL_FILE", "FUZZFARM_JOB_KEY_FILE"]) {
      assert.ok(child[k]!.startsWith(dataDir), `${k} lies under the data directory (hidden from sandboxed targets)`);
      assert.equal(statSync(child[k]!).mode & 0o077, 0, `${k} is readable by others`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("App mode refuses to run pull requests unsandboxed, and a target cannot ask for the farm's variables", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "ffgh-env-"));
  try {
    assert.throws(() => githubApp.ciChildEnv({ ...coordinatorEnv(), FUZZFARM_SANDBOX: "none" }, dataDir), /only in the sandbox/);
    assert.equal(githubApp.ciChildEnv({ ...coordinatorEnv(), FUZZFARM_SANDBOX: "net" }, dataDir).FUZZFARM_SANDBOX, "net");
    for (const name of ["FUZZFARM_ADMIN_TOKEN", "FUZZFARM_JOB_KEY", "DATABASE_URL", "GITHUB_TOKEN"])
      assert.throws(() => githubApp.ciChildEnv({ ...coordinatorEnv(), FUZZFARM_GITHUB_TARGET_ENV: `DECODER_MODE,${name}` }, dataDir), /never reach/, name);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
