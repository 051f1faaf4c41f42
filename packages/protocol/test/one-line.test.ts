// oneLine is what every "(trying again): ..." log and every CLI error line
// shows. A Prisma error that begins with a blank line once produced a log of
// empty reasons while PostgreSQL restarted; these cases keep the cause visible.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FuzzFarmError, oneLine } from "../src/index";

test("oneLine: a Prisma error is named by its cause, not by its blank first line or its invocation header", () => {
  const e = new Error("\nInvalid `prisma.campaign.findUnique()` invocation:\n\n\nCan't reach database server at `127.0.0.1:5432`\n");
  assert.equal(oneLine(e), "Can't reach database server at `127.0.0.1:5432`");
});

test("oneLine: the first non-blank line of a message; an error without a message by its code or name; never empty", () => {
  assert.equal(oneLine(new Error("\n  connect ECONNREFUSED 127.0.0.1:6379\n    at x")), "connect ECONNREFUSED 127.0.0.1:6379");
  assert.equal(oneLine(Object.assign(new Error(""), { code: "ECONNRESET" })), "ECONNRESET");
  assert.equal(oneLine(new TypeError("")), "TypeError");
  assert.equal(oneLine("\n"), "unknown error");
  assert.equal(oneLine(new FuzzFarmError("FF_ERR_CONFIG", "bad flag\nmore")), "FF_ERR_CONFIG: bad flag");
});
