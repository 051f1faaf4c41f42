import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@fuzzfarm/config";

test("precedence is defaults < file < env < flags", () => {
  const dir = mkdtempSync(join(tmpdir(), "ffcfg-"));
  writeFileSync(join(dir, "fuzzfarm.config.json"), JSON.stringify({ httpPort: 1111, queuePrefix: "file", workers: 3 }));
  const c = loadConfig({ cwd: dir, env: { FUZZFARM_HTTP_PORT: "2222", REDIS_URL: "redis://a:1", FUZZFARM_REDIS_URL: "redis://b:2" }, flags: { workers: 5 } });
  assert.equal(c.httpPort, 2222);
  assert.equal(c.queuePrefix, "file");
  assert.equal(c.workers, 5);
  assert.equal(c.redisUrl, "redis://b:2", "FUZZFARM_* wins over the plain name");
  assert.equal(c.databaseUrl, "postgresql://postgres@127.0.0.1:5432/fuzzfarm");
  assert.ok(Object.isFrozen(c));
});

test("a bad value is one clear error with a stable code", () => {
  assert.throws(() => loadConfig({ env: { REDIS_URL: "http://nope" } }), (e: any) => e.code === "FF_ERR_CONFIG" && /redisUrl/.test(e.message));
});
