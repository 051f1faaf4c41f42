// One check of every request's query string, before any route reads it: each
// key and value must be valid percent-encoded UTF-8, hold no control
// character (C0, DEL, C1) and appear once. Without it `?kind=%00` reached
// PostgreSQL (which refuses NUL in text: a 500), invalid UTF-8 was silently
// turned into replacement characters, and routes without a schema for a key
// (bull-board's included) saw arrays where they read strings. Each refusal
// is 400 FF_ERR_VALIDATION with one line naming the parameter. No route of
// the dashboard takes a repeated parameter.
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";
import { FuzzFarmError, isFuzzFarmError } from "@fuzzfarm/protocol";
import { sendError } from "./errors";

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const shown = (s: string) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s).replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");

/** Decode one `application/x-www-form-urlencoded` component, or throw the 400 that names it. */
function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, " "));
  } catch {
    throw new FuzzFarmError("FF_ERR_VALIDATION", `query string: ${what} ${shown(part)} is not valid percent-encoded UTF-8`);
  }
}

/** Throws FF_ERR_VALIDATION when the query string of `url` is not one plain value per key. */
export function checkQueryString(url: string): void {
  const q = url.indexOf("?");
  if (q < 0) return;
  const seen = new Set<string>();
  for (const pair of url.slice(q + 1).split("#")[0]!.split("&")) {
    if (!pair) continue;
    const eq = pair.indexOf("=");
    const key = decode(eq < 0 ? pair : pair.slice(0, eq), "parameter name");
    const value = eq < 0 ? "" : decode(pair.slice(eq + 1), `parameter ${shown(key)}`);
    if (CONTROL.test(key) || CONTROL.test(value)) throw new FuzzFarmError("FF_ERR_VALIDATION", `query string: parameter ${shown(key)} holds a control character`);
    if (seen.has(key)) throw new FuzzFarmError("FF_ERR_VALIDATION", `query string: parameter ${shown(key)} is given more than once`);
    seen.add(key);
  }
}

async function queryGuard(app: FastifyInstance) {
  // Answered here rather than thrown: contexts with their own error handler (bull-board) get the same 400.
  app.addHook("onRequest", async (req, reply) => {
    try {
      checkQueryString(req.raw.url ?? "");
    } catch (e) {
      if (!isFuzzFarmError(e)) throw e;
      return sendError(req, reply, e);
    }
  });
}

export default fp(queryGuard, { name: "ff-query-guard" });
