// Coverage of a campaign: the istanbul HTML report (per file, per line),
// embedded in the dashboard page and served from the data directory, plus
// the per-file summary as JSON. Report pages get a CSP that allows, by hash,
// only the inline script of istanbul's own page template (the prettyPrint
// onload hook): any other inline script on a report page, however it got
// there, is refused by the browser.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { campaignCoverage, campaignCoverageStamp } from "@fuzzfarm/db";
import { html, seg } from "../../html/escape";
import { sendPage } from "../../internal/pages";
import { resolveInside } from "../../internal/safe-path";
import { IdParams, readErrors } from "../../schemas";
import { coverageSummary, ensureReport } from "./report";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

/** Inline scripts of istanbul-reports' HTML template (lib/html/index.js footer), whitespace collapsed. */
const TEMPLATE_SCRIPTS = new Set(["window.onload = function () { prettyPrint(); };"]);
const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/** CSP for an istanbul page: the template's own inline script by hash, nothing else inline. */
export function reportCsp(page: string): string {
  const hashes = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)]
    .filter((m) => TEMPLATE_SCRIPTS.has(collapse(m[1]!)))
    .map((m) => `'sha256-${createHash("sha256").update(m[1]!).digest("base64")}'`);
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(" ")}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
  ].join("; ");
}

const metric = { type: "object", properties: { total: { type: "integer" }, covered: { type: "integer" }, skipped: { type: "integer" }, pct: { type: ["number", "string"] } } } as const;

export default async function coverageRoutes(app: FastifyInstance) {
  const db = app.ff.db;
  const reportsRoot = join(app.ff.opts.dataDir, "coverage-reports");

  const build = async (id: string) => {
    const stamp = await campaignCoverageStamp(db, id);
    return ensureReport(reportsRoot, id, stamp, async () => {
      const c = await campaignCoverage(db, id);
      return { coverageMap: c.coverageMap, targetPath: c.target.path };
    }, [app.ff.opts.dataDir]);
  };

  app.get("/api/campaigns/:id/coverage", {
    schema: {
      tags: ["coverage"],
      summary: "Coverage summary of a campaign, total and per file (istanbul metrics)",
      params: IdParams,
      response: {
        200: {
          type: "object",
          properties: {
            total: { type: "object", properties: { lines: metric, statements: metric, functions: metric, branches: metric } },
            files: { type: "array", items: { type: "object", properties: { file: { type: "string" }, lines: metric, statements: metric, functions: metric, branches: metric } } },
          },
        },
        ...readErrors,
      },
    },
    handler: async (req) => coverageSummary((await campaignCoverage(db, (req.params as { id: string }).id)).coverageMap),
  });

  app.get("/campaigns/:id/coverage", {
    schema: { hide: true, params: IdParams },
    handler: async (req, reply) => {
      const { id } = req.params as { id: string };
      await build(id);
      const body = html`<h1>Coverage of campaign <a href="/campaigns/${seg(id)}"><code>${id}</code></a></h1>
<p class="muted">istanbul report of the merged coverage of every job of the campaign. <a href="/campaigns/${seg(id)}/coverage/report/index.html">Open in full page</a></p>
<iframe class="coverage" src="/campaigns/${seg(id)}/coverage/report/index.html" title="coverage report"></iframe>`;
      return sendPage(req, reply, { title: `Coverage ${id}`, active: "coverage", body });
    },
  });

  app.get("/campaigns/:id/coverage/report/*", {
    schema: { hide: true },
    handler: async (req, reply) => {
      const { id, "*": rest } = req.params as { id: string; "*": string };
      if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) return reply.callNotFound();
      const { dir } = await build(id);
      const file = await resolveInside(dir, rest || "index.html");
      const type = TYPES[extname(file)] ?? "application/octet-stream";
      const bytes = await readFile(file);
      if (type.startsWith("text/html")) reply.header("content-security-policy", reportCsp(bytes.toString("utf8")));
      return reply.type(type).send(bytes);
    },
  });
}
