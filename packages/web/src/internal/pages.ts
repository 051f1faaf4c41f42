// Helpers shared by the page routes: the frame of the current request and
// sending a rendered page.
import type { FastifyReply, FastifyRequest } from "fastify";
import { layout, type PageFrame } from "../html/layout";

export function sendPage(req: FastifyRequest, reply: FastifyReply, p: Omit<PageFrame, "csrf" | "canWrite">): FastifyReply {
  const a = req.auth;
  const frame: PageFrame = { ...p, csrf: a.kind === "session" ? a.session.csrf : undefined, canWrite: a.kind === "session" || a.kind === "admin-token" };
  return reply.type("text/html; charset=utf-8").send(layout(frame).value);
}

/** True when the page should offer write controls. */
export const canWrite = (req: FastifyRequest) => req.auth.kind === "session" || req.auth.kind === "admin-token";

/** Clamp a page number from a query string. */
export const pageNumber = (v: unknown) => Math.max(1, Math.min(1_000_000, Math.floor(Number(v) || 1)));
