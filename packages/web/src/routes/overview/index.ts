// The overview: campaigns (state, execs/s, coverage, corpus, new buckets),
// the worker fleet and queue depths; as a page with live regions and as JSON.
import type { FastifyInstance } from "fastify";
import { listCampaignSummaries } from "@fuzzfarm/db";
import { queueDepths } from "@fuzzfarm/queue";
import { html, href, seg } from "../../html/escape";
import { fmtAgo, fmtCompact, fmtInt, fmtPct } from "../../html/format";
import { pageNumber, sendPage } from "../../internal/pages";
import { fleet } from "../workers/fleet";
import { QueueDepth, readErrors } from "../../schemas";

const PAGE = 25;

export default async function overviewRoutes(app: FastifyInstance) {
  const ff = app.ff;
  const load = (page: number) =>
    Promise.all([listCampaignSummaries(ff.db, { limit: PAGE, offset: (page - 1) * PAGE }), fleet(ff), queueDepths(ff.queues)]).then(([campaigns, workers, queues]) => ({
      campaigns,
      workers,
      queues,
    }));

  app.get("/api/overview", {
    schema: {
      tags: ["overview"],
      summary: "Everything the overview page shows: campaigns (first page), workers, queue depths",
      querystring: { type: "object", properties: { page: { type: "integer", minimum: 1, default: 1 } } },
      response: {
        200: {
          type: "object",
          properties: {
            campaigns: { type: "object", properties: { items: { type: "array", items: { $ref: "CampaignSummary#" } }, total: { type: "integer" }, limit: { type: "integer" }, offset: { type: "integer" } } },
            workers: { type: "array", items: { $ref: "WorkerRow#" } },
            queues: { type: "object", additionalProperties: QueueDepth },
          },
        },
        ...readErrors,
      },
    },
    handler: async (req) => load((req.query as { page: number }).page),
  });

  app.get("/", {
    schema: { hide: true, querystring: { type: "object", properties: { page: { type: "integer", minimum: 1 } } } },
    handler: async (req, reply) => {
      const page = pageNumber((req.query as { page?: number }).page);
      const { campaigns, workers, queues } = await load(page);
      const now = Date.now();
      const pages = Math.max(1, Math.ceil(campaigns.total / PAGE));
      const body = html`<h1>Overview</h1>
<h2>Campaigns</h2>
<div data-live="campaigns">
<table class="campaigns"><thead><tr><th>campaign</th><th>target</th><th>engine</th><th>state</th><th class="num">execs</th><th class="num">execs/s</th><th class="num">coverage</th><th class="num">novelty</th><th class="num">corpus</th><th class="num">buckets</th><th class="num">new buckets</th></tr></thead>
<tbody>${campaigns.items.map(
        (c) => html`<tr data-campaign="${c.id}">
<td><a href="/campaigns/${seg(c.id)}"><code>${c.id}</code></a></td><td>${c.targetName} <small>${c.targetVersion}</small></td><td>${c.engine}</td>
<td><span class="status status-${c.status}">${c.status}</span></td>
<td class="num" data-field="execs">${fmtInt(c.execs)}</td><td class="num" data-field="execsPerSec">${fmtCompact(c.execsPerSec)}</td>
<td class="num" data-field="covered">${fmtInt(c.covered)} <small>${fmtPct(c.covered, c.coverageTotal)}</small></td><td class="num" data-field="novelty">${fmtInt(c.novelty)}</td>
<td class="num" data-field="corpusSize">${fmtInt(c.corpusSize)}</td><td class="num" data-field="buckets">${fmtInt(c.buckets)}</td>
<td class="num" data-field="newBuckets">${c.newBuckets ? html`<a href="${href("/buckets", { campaignId: c.id, status: "new" })}">${fmtInt(c.newBuckets)}</a>` : "0"}</td>
</tr>`,
      )}</tbody></table>
${campaigns.items.length === 0 ? html`<p class="empty">No campaigns yet: <code>fuzzfarm fuzz &lt;target&gt;</code> starts one.</p>` : ""}
${pages > 1 ? html`<nav class="pager">${page > 1 ? html`<a href="?page=${page - 1}">← newer</a>` : ""} <span>page ${page} of ${pages}</span> ${page < pages ? html`<a href="?page=${page + 1}">older →</a>` : ""}</nav>` : ""}
</div>
<h2>Workers</h2>
<div data-live="workers">
<table class="workers"><thead><tr><th>worker</th><th>host</th><th>engines</th><th>current job</th><th>last heartbeat</th><th class="num">execs/s</th><th class="num">jobs</th></tr></thead>
<tbody>${workers.map(
        (w) => html`<tr data-worker="${w.id}"${w.live ? "" : html` class="stale"`}><td><code>${w.id}</code></td><td>${w.host} <small>pid ${w.pid}</small></td><td>${w.engines.join(", ")}</td>
<td>${w.currentJobId ? html`<code>${w.currentJobId}</code>` : html`<span class="muted">idle</span>`}</td><td>${fmtAgo(w.lastHeartbeat, now)}</td>
<td class="num">${fmtCompact(w.execsPerSec)}</td><td class="num">${fmtInt(w.jobsDone)}</td></tr>`,
      )}</tbody></table>
${workers.length === 0 ? html`<p class="empty">No worker has reported in the last 10 minutes.</p>` : ""}
</div>
<h2>Queues</h2>
<div data-live="queues">
<table class="queues"><thead><tr><th>queue</th><th class="num">waiting</th><th class="num">active</th><th class="num">delayed</th><th class="num">failed</th><th class="num">completed</th></tr></thead>
<tbody>${Object.entries(queues).map(
        ([name, d]) => html`<tr data-queue="${name}"><td>${name}</td><td class="num">${fmtInt(d.waiting)}</td><td class="num">${fmtInt(d.active)}</td><td class="num">${fmtInt(d.delayed)}</td><td class="num">${fmtInt(d.failed)}</td><td class="num">${fmtInt(d.completed)}</td></tr>`,
      )}</tbody></table>
<p><a href="/admin/queues">Inspect jobs (bull-board)</a></p>
</div>`;
      return sendPage(req, reply, { title: "Overview", active: "overview", body });
    },
  });
}
