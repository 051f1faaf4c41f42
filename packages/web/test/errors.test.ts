// docs/errors.md, protocol's ERROR_CODES and the web layer's mapping agree
// (like fastify's lib/errors.js and its test), and every code reaches a
// client with its status and the one response shape.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ERROR_CODES, FuzzFarmError, type ErrorCode } from "@fuzzfarm/protocol";
import { httpStatusOf, toFuzzFarmError, errorBody } from "../src/index";
import { startFarm, type Farm } from "./helpers";

const doc = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8");

function docTable(): Map<string, { status: number; summary: string }> {
  const rows = new Map<string, { status: number; summary: string }>();
  for (const m of doc.matchAll(/^\| `(FF_ERR_[A-Z_]+)` \| (\d{3}) \| (.+?) \|$/gm)) rows.set(m[1]!, { status: Number(m[2]), summary: m[3]! });
  return rows;
}

test("docs/errors.md lists exactly the codes of ERROR_CODES, with the same status and summary", () => {
  const rows = docTable();
  assert.deepEqual([...rows.keys()].sort(), Object.keys(ERROR_CODES).sort());
  for (const [code, def] of Object.entries(ERROR_CODES)) {
    assert.equal(rows.get(code)!.status, def.status, code);
    assert.equal(rows.get(code)!.summary, def.summary, code);
    assert.equal(httpStatusOf(code as ErrorCode), def.status, code);
  }
});

test("every code maps to its status and one body shape", () => {
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    const e = toFuzzFarmError(new FuzzFarmError(code, "two\nlines"));
    assert.deepEqual(errorBody(e), { error: { code, message: "two", statusCode: ERROR_CODES[code].status } });
  }
  assert.equal(toFuzzFarmError(new Error("secret detail")).code, "FF_ERR_INTERNAL");
  assert.equal(errorBody(toFuzzFarmError(new Error("secret detail"))).error.message, "internal error");
});

let farm: Farm;
before(async () => {
  farm = await startFarm();
});
after(async () => {
  await farm.close();
});

test("framework errors get FuzzFarm codes over HTTP", async () => {
  const notFound = await farm.app.inject({ url: "/api/no-such-thing" });
  assert.equal(notFound.statusCode, 404);
  assert.equal(notFound.json().error.code, "FF_ERR_NOT_FOUND");
  const badJson = await farm.app.inject({ method: "POST", url: "/api/buckets/b1/notes", headers: { authorization: "Bearer admin-token-0123456789abcdef", "content-type": "application/json" }, payload: "{nope" });
  assert.equal(badJson.statusCode, 400);
  assert.equal(badJson.json().error.code, "FF_ERR_VALIDATION");
  const badParam = await farm.app.inject({ url: "/api/buckets/bad%20id%3Cx%3E" });
  assert.equal(badParam.statusCode, 400);
  assert.equal(badParam.json().error.code, "FF_ERR_VALIDATION");
  const big = await farm.app.inject({ method: "POST", url: "/api/buckets/b1/notes", headers: { authorization: "Bearer admin-token-0123456789abcdef", "content-type": "application/json" }, payload: JSON.stringify({ note: "x".repeat(2_000_000) }) });
  assert.equal(big.statusCode, 413);
  assert.equal(big.json().error.code, "FF_ERR_ARTIFACT_TOO_LARGE");
  const page = await farm.app.inject({ url: "/buckets/nope", headers: { accept: "text/html" } });
  assert.equal(page.statusCode, 404);
  assert.match(page.headers["content-type"] as string, /text\/html/);
  assert.match(page.body, /FF_ERR_NOT_FOUND/);
});
