// Before set-up is done, a command fails with one line naming the command to
// run, not a stack trace: the generated Prisma client missing (a checkout
// after `npm ci` alone), the database not created yet, the services down.
// The errors are the real ones: a failed import of a missing generated
// client, and the CLI run against a database that does not exist.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describeStartupError } from "../src/startup-errors";
import { runCli } from "./helpers";

test("a missing generated Prisma client is one line naming npm run setup", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ff-no-client-"));
  try {
    const e = await import(pathToFileURL(join(dir, "packages", "db", "src", "generated", "client.ts")).href).then(
      () => assert.fail("imported a file that does not exist"),
      (x: unknown) => x,
    );
    const line = await describeStartupError(e);
    assert.equal(line, "FF_ERR_DB_DOWN: the database client is not generated yet: run `npm run setup`");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a database that does not exist yet: one line, exit 2, naming the command that creates it", async () => {
  const env = { ...process.env, FUZZFARM_DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/ff_never_created_${process.pid}` };
  const r = await runCli(["status"], env);
  assert.equal(r.code, 2);
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /^fuzzfarm: FF_ERR_DB_DOWN: database "ff_never_created_\d+" does not exist on 127\.0\.0\.1:5432: run `npm run setup` to create it$/);
});

test("Redis down: the one line also says which command starts local services", async () => {
  const r = await runCli(["status"], { ...process.env, FUZZFARM_REDIS_URL: "redis://127.0.0.1:1" });
  assert.equal(r.code, 2);
  assert.match(r.stderr.trim(), /^fuzzfarm: FF_ERR_REDIS_DOWN: Redis at 127\.0\.0\.1:1 does not answer.* \(local services start with `npm run setup`\)$/);
});
