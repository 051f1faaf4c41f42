// Message normalization: what varies between runs of the same bug is masked.
import assert from "node:assert/strict";
import { test } from "node:test";
import { normalizeMessage } from "../src/index";

test("numbers, hex addresses and ids, uuids, temp paths, ports, pids, timestamps are masked", () => {
  const cases: [string, string][] = [
    ["record 42 not found at 0x7ffc627f3180", "record <n> not found at <hex>"],
    ["job 3f9a1c2e-7b4d-4e1a-9c3b-2a1f0e9d8c7b failed", "job <uuid> failed"],
    ["ENOENT: no such file or directory, open '/tmp/xyz123/cache.json'", "ENOENT: no such file or directory, open '<tmp>/cache.json'"],
    ["connect ECONNREFUSED 127.0.0.1:54321", "connect ECONNREFUSED <ip>:<port>"],
    ["listen EADDRINUSE: address already in use :::8080", "listen EADDRINUSE: address already in use :::<port>"],
    ["server on localhost:3000 refused", "server on localhost:<port> refused"],
    ["bad port 8080", "bad port <port>"],
    ["worker pid 31337 exited", "worker pid <pid> exited"],
    ["node[1234]: Assertion failed", "node[<pid>]: Assertion failed"],
    ["module 8c5a3f2e didn't load", "module <hex> didn't load"],
    ["at 2025-01-02T03:04:05.678Z the lease expired", "at <time> the lease expired"],
    ["  many   spaces\n\tand lines ", "many spaces and lines"],
  ];
  for (const [raw, want] of cases) assert.equal(normalizeMessage(raw), want, raw);
});

test("words with digits and plain words are kept", () => {
  assert.equal(normalizeMessage("utf8 and base64 in Int32Array; deadbeef"), "utf8 and base64 in Int32Array; deadbeef");
});

test("the root dir is stripped (paths and file URLs) and output is bounded", () => {
  assert.equal(normalizeMessage("cannot parse /srv/app/lib/a.js and file:///srv/app/b.mjs", { rootDir: "/srv/app/" }), "cannot parse lib/a.js and b.mjs");
  assert.ok(normalizeMessage("x".repeat(10_000)).length <= 500);
});

test("two runs of the same bug normalize equal; different bugs do not", () => {
  const a = normalizeMessage("timeout after 5012 ms waiting for 127.0.0.1:40213 (pid 811)");
  const b = normalizeMessage("timeout after 4999 ms waiting for 127.0.0.1:39001 (pid 990)");
  assert.equal(a, b);
  assert.notEqual(a, normalizeMessage("refused by 127.0.0.1:40213 (pid 811)"));
});
