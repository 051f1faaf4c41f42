// The parts of `fuzzfarm ci` that need no farm: the state directory's format
// (version check, one file per bucket with history merged, content-addressed
// corpus, paths stored relative to the checkout) and the base's install
// (lockfile equal to the head's: borrowed; out of sync: a reason, no throw).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localize, relocate, StateDir, stateBucketId, type StateBucket } from "../src/ci/state";
import { installBase } from "../src/ci/base-install";

const bucket = (history: StateBucket["history"]): StateBucket => ({
  version: 1,
  id: stateBucketId("fuzz.js", "uncaught:Error | fuzz@fuzz.js"),
  target: "fuzz.js",
  engine: "input",
  kind: "uncaught",
  title: "uncaught Error in fuzz (fuzz.js)",
  signature: "uncaught:Error | fuzz@fuzz.js",
  status: "open",
  history,
  report: { message: "boom", stack: "Error: boom\n    at fuzz ({{repo}}/fuzz.js:2:9)", artifact: { reproducer: { engine: "input", input: "QQ==" } } },
});

test("state directory: created with its .gitignore and format, refuses a newer version, merges two runs' writes", () => {
  const dir = mkdtempSync(join(tmpdir(), "ffci-state-"));
  try {
    const s = new StateDir(join(dir, "state")).open();
    assert.equal(readFileSync(join(s.dir, ".gitignore"), "utf8").trim().split("\n").pop(), "*");
    assert.deepEqual(JSON.parse(readFileSync(join(s.dir, "fuzzfarm-state.json"), "utf8")), { format: "fuzzfarm-ci-state", version: 1 });

    // two runs record the same bucket: both events stay, in time order
    s.saveBucket(bucket([{ at: "2026-12-05T10:00:00.000Z", commit: "b", event: "new" }]));
    s.saveBucket(bucket([{ at: "2026-12-05T09:00:00.000Z", commit: "a", event: "pre-existing" }]));
    const [b] = s.buckets("fuzz.js", () => {});
    assert.deepEqual(b!.history.map((e) => e.commit), ["a", "b"]);
    assert.deepEqual(s.buckets("other.js", () => {}), []);

    // corpus: content-addressed, a second add of the same input adds nothing
    assert.equal(s.addCorpus("src/fuzz.js", [Buffer.from("x"), Buffer.from("y")]), 2);
    assert.equal(s.addCorpus("src/fuzz.js", [Buffer.from("y"), Buffer.from("z")]), 1);
    assert.deepEqual(s.corpus("src/fuzz.js").map(String).sort(), ["x", "y", "z"]);

    // an unreadable bucket file is skipped with a line, not fatal
    writeFileSync(join(s.dir, "buckets", "s_broken.json"), "{");
    const lines: string[] = [];
    assert.equal(s.buckets("fuzz.js", (l) => lines.push(l)).length, 1);
    assert.match(lines[0]!, /s_broken\.json skipped/);

    writeFileSync(join(s.dir, "fuzzfarm-state.json"), JSON.stringify({ format: "fuzzfarm-ci-state", version: 2 }));
    assert.throws(() => new StateDir(s.dir).open(), /format version 2; this FuzzFarm reads up to 1: upgrade it/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("state paths: the checkout's root is stored as {{repo}} and restored under another clone's root", () => {
  const stored = relocate({ stack: "at fuzz (/tmp/a/checkout/fuzz.js:2:9)", root: "/tmp/a/checkout" }, "/tmp/a/checkout/");
  assert.deepEqual(stored, { stack: "at fuzz ({{repo}}/fuzz.js:2:9)", root: "{{repo}}" });
  assert.deepEqual(localize(stored, "/home/u/src/x"), { stack: "at fuzz (/home/u/src/x/fuzz.js:2:9)", root: "/home/u/src/x" });
});

test("base install: an equal lockfile borrows the head's node_modules; one out of sync with package.json is a reason, not an error", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ffci-install-"));
  try {
    const head = join(dir, "head");
    const base = join(dir, "base");
    for (const d of [head, base]) mkdirSync(d);
    const pkg = JSON.stringify({ name: "p", version: "1.0.0", dependencies: { ms: "2.1.3" } });
    const lock = JSON.stringify({ name: "p", version: "1.0.0", lockfileVersion: 3, requires: true, packages: { "": { name: "p", version: "1.0.0" } } });
    for (const d of [head, base]) {
      writeFileSync(join(d, "package.json"), pkg);
      writeFileSync(join(d, "package-lock.json"), lock);
    }
    mkdirSync(join(head, "node_modules", "ms"), { recursive: true });
    const env = { PATH: process.env.PATH!, HOME: process.env.HOME! };
    const same = await installBase({ headRoot: head, baseRoot: base, env });
    assert.deepEqual(same, { ok: true, how: "package-lock.json equals the head's: its node_modules reused" });
    assert.ok(lstatSync(join(base, "node_modules")).isSymbolicLink());
    assert.deepEqual(readdirSync(join(base, "node_modules")), ["ms"]);

    // the base's lockfile differs (and lacks ms, which package.json asks for): `npm ci` refuses, said in one reason
    rmSync(join(base, "node_modules"));
    writeFileSync(join(base, "package-lock.json"), lock.replace('"version":"1.0.0"', '"version":"0.9.0"'));
    const failed = await installBase({ headRoot: head, baseRoot: base, env });
    assert.equal(failed.ok, false);
    assert.match((failed as { why: string }).why, /^installing the base's dependencies failed: npm ci --ignore-scripts --no-audit --no-fund exited with code 1: /);
    assert.ok(!existsSync(join(base, "node_modules", "ms")));

    rmSync(join(base, "package-lock.json"));
    assert.match((await installBase({ headRoot: head, baseRoot: base, env }) as { why: string }).why, /no lockfile/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
