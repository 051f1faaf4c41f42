// The ONE place where errors become HTTP responses. A FuzzFarmError keeps
// its stable code and the status from protocol's ERROR_CODES; fastify's own
// errors (schema validation, bad JSON, unknown route, payload too large) are
// given the matching FuzzFarm code; anything else is FF_ERR_INTERNAL with a
// generic message (the detail goes to the log, never to the client).
import fp from "fastify-plugin";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ERROR_CODES, FuzzFarmError, isFuzzFarmError, type ErrorCode } from "@fuzzfarm/protocol";
import { errorPage } from "../html/layout";

/** JSON body of every error response. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; statusCode: number };
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/** Translate any thrown value to a stable code and one-line message. */
export function toFuzzFarmError(e: unknown): FuzzFarmError {
  if (isFuzzFarmError(e)) return e;
  const fe = e as Partial<FastifyError> & { validation?: unknown };
  if (fe && typeof fe === "object") {
    if (fe.validation) return new FuzzFarmError("FF_ERR_VALIDATION", oneLineOf(fe.message ?? "invalid request"));
    if (fe.code === "FST_ERR_CTP_BODY_TOO_LARGE") return new FuzzFarmError("FF_ERR_ARTIFACT_TOO_LARGE", "request body too large");
    if (typeof fe.code === "string" && fe.code.startsWith("FST_ERR_CTP")) return new FuzzFarmError("FF_ERR_VALIDATION", oneLineOf(fe.message ?? "bad request body"));
    if (fe.statusCode === 400) return new FuzzFarmError("FF_ERR_VALIDATION", oneLineOf(fe.message ?? "bad request"));
    if (fe.statusCode === 404) return new FuzzFarmError("FF_ERR_NOT_FOUND", "not found");
  }
  return new FuzzFarmError("FF_ERR_INTERNAL", "internal error");
}

const oneLineOf = (s: string) => s.split("\n")[0]!.slice(0, 300);

export function errorBody(e: FuzzFarmError): ErrorBody {
  return { error: { code: e.code, message: oneLineOf(e.message), statusCode: httpStatusOf(e.code) } };
}

/** Browsers asking for a page get an HTML error page; API clients get JSON. */
const wantsHtml = (req: FastifyRequest) => !req.url.startsWith("/api/") && (req.headers.accept ?? "").includes("text/html");

/** Send `e` as the response (JSON, or an HTML page for browsers). For contexts whose error handler is not ours (bull-board). */
export function sendError(req: FastifyRequest, reply: FastifyReply, e: FuzzFarmError) {
  const status = httpStatusOf(e.code);
  if (wantsHtml(req)) return reply.status(status).type("text/html; charset=utf-8").send(errorPage(status, e.code, oneLineOf(e.message)).value);
  return reply.status(status).send(errorBody(e));
}

async function errorsPlugin(app: FastifyInstance) {
  app.setErrorHandler((err, req, reply) => {
    const e = toFuzzFarmError(err);
    if (e.code === "FF_ERR_INTERNAL") req.log.error({ err }, "unhandled error");
    return sendError(req, reply, e);
  });
  app.setNotFoundHandler((req, reply) => sendError(req, reply, new FuzzFarmError("FF_ERR_NOT_FOUND", `no route ${req.method} ${req.url.split("?")[0]}`)));
}

export default fp(errorsPlugin, { name: "ff-errors" });
