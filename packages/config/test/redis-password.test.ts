// The loader fills in the password of the Redis `fuzzfarm up` started
// (<dataDir>/redis/password) for a local URL without credentials, and leaves
// remote URLs and URLs with their own credentials alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, redisPasswordFile } from "@fuzzfarm/config";

function dataDirWithPassword(password: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), "ffcfg-redis-"));
  if (password !== undefined) {
    mkdirSync(join(dir, "redis"));
    writeFileSync(join(dir, "redis", "password"), password, { mode: 0o600 });
  }
  return dir;
}

const redisUrlOf = (dataDir: string, url?: string) => loadConfig({ cwd: dataDir, env: { FUZZFARM_DATA_DIR: dataDir, ...(url ? { REDIS_URL: url } : {}) } }).redisUrl;

test("a local Redis URL without credentials gets the stored password", () => {
  const dir = dataDirWithPassword("0123abcd\n");
  assert.equal(redisPasswordFile(dir), join(dir, "redis", "password"));
  assert.equal(redisUrlOf(dir), "redis://:0123abcd@127.0.0.1:6379", "the default URL");
  assert.equal(redisUrlOf(dir, "redis://localhost:6390/2"), "redis://:0123abcd@localhost:6390/2");
  assert.equal(redisUrlOf(dir, "redis://[::1]:6390"), "redis://:0123abcd@[::1]:6390");
  // A flag, like the env, is a URL the loader completes.
  assert.equal(loadConfig({ cwd: dir, env: { FUZZFARM_DATA_DIR: dir }, flags: { redisUrl: "redis://127.0.0.1:6391" } }).redisUrl, "redis://:0123abcd@127.0.0.1:6391");
});

test("remote URLs, URLs with their own credentials, and a data dir without a password file are left alone", () => {
  const dir = dataDirWithPassword("0123abcd");
  for (const url of ["redis://redis.example:6379", "redis://10.0.0.5:6379", "redis://:mine@127.0.0.1:6379", "redis://worker:pw@127.0.0.1:6379", "redis://worker@localhost:6379"])
    assert.equal(redisUrlOf(dir, url), url);
  const none = dataDirWithPassword(undefined);
  assert.equal(redisUrlOf(none), "redis://127.0.0.1:6379");
  assert.equal(redisUrlOf(dataDirWithPassword("  \n")), "redis://127.0.0.1:6379", "an empty file is no password");
});

test("a password file that cannot be read is one config error naming it", () => {
  const dir = dataDirWithPassword(undefined);
  mkdirSync(join(dir, "redis", "password"), { recursive: true }); // a directory: unreadable as a file, even for root
  assert.throws(() => redisUrlOf(dir), (e: Error & { code?: string }) => {
    assert.equal(e.code, "FF_ERR_CONFIG");
    assert.equal(e.message, `cannot read the Redis password file ${join(dir, "redis", "password")}: EISDIR`);
    return true;
  });
});
