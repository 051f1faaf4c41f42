// Bucket pages: the sortable, filterable list, and one bucket with its
// signature, stacks, sample reports, reproduction command, downloads, the
// Node schedule / Wasm program, and the triage forms (shown to writers;
// they post JSON to the same API as the CLI, with the session's CSRF token).
import type { FastifyInstance } from "fastify";
import { BUCKET_SORTS, BUCKET_STATUSES, bucketDetail, bucketReports, queryBuckets, similarBuckets, type BucketQuery } from "@fuzzfarm/db";
import { html, href, seg, type SafeHtml } from "../../html/escape";
import { fmtBytes, fmtInt, fmtRate, fmtTime } from "../../html/format";
import { canWrite, pageNumber, sendPage } from "../../internal/pages";
import { bucketTable } from "./table";
import { findingExtras } from "./explain";
import { BUCKET_KINDS } from "./api";
import { Id, IdParams } from "../../schemas";

const PAGE_SIZE = 50;
const REPORTS_PER_PAGE = 10;

function pager(base: string, query: Record<string, string | number | undefined>, page: number, total: number, size: number): SafeHtml {
  const pages = Math.max(1, Math.ceil(total / size));
  return html`<nav class="pager">
${page > 1 ? html`<a rel="prev" href="${href(base, { ...query, page: page - 1 })}">← previous</a>` : ""}
<span>page ${page} of ${pages} (${fmtInt(total)})</span>
${page < pages ? html`<a rel="next" href="${href(base, { ...query, page: page + 1 })}">next →</a>` : ""}
</nav>`;
}

function frameText(f: unknown): string {
  if (f && typeof f === "object") {
    const o = f as Record<string, unknown>;
    const fn = typeof o.fn === "string" ? o.fn : typeof o.function === "string" ? o.function : "";
    const file = typeof o.file === "string" ? o.file : "";
    if (fn || file) return `${fn || "(anonymous)"} ${file}${o.line !== undefined ? `:${String(o.line)}` : ""}${o.col !== undefined ? `:${String(o.col)}` : ""}`;
  }
  return typeof f === "string" ? f : JSON.stringify(f);
}

export default async function bucketPages(app: FastifyInstance) {
  const db = app.ff.db;

  app.get("/buckets", {
    schema: {
      hide: true,
      querystring: {
        type: "object",
        properties: {
          kind: { type: "string", maxLength: 32 },
          status: { type: "string", maxLength: 32 },
          targetId: Id,
          campaignId: Id,
          version: { type: "string", maxLength: 200 },
          q: { type: "string", maxLength: 200 },
          sort: { type: "string", enum: [...BUCKET_SORTS] },
          order: { type: "string", enum: ["asc", "desc"] },
          page: { type: "integer", minimum: 1, maximum: 1_000_000 },
        },
      },
    },
    handler: async (req, reply) => {
      const q = req.query as Omit<BucketQuery, "limit" | "offset"> & { page?: number };
      const page = pageNumber(q.page);
      const filter: BucketQuery = {
        ...q,
        status: (BUCKET_STATUSES as readonly string[]).includes(q.status ?? "") ? q.status : undefined,
        limit: PAGE_SIZE,
        offset: (page - 1) * PAGE_SIZE,
      };
      const res = await queryBuckets(db, filter);
      const query = { kind: q.kind, status: q.status, targetId: q.targetId, campaignId: q.campaignId, version: q.version, q: q.q, sort: q.sort, order: q.order };
      const opt = (value: string, current: string | undefined) => html`<option value="${value}"${value === (current ?? "") ? html` selected` : ""}>${value || "any"}</option>`;
      const body = html`<h1>Buckets</h1>
<form class="filters" method="get" action="/buckets">
  <label>kind <select name="kind">${["", ...BUCKET_KINDS].map((k) => opt(k, q.kind))}</select></label>
  <label>status <select name="status">${["", ...BUCKET_STATUSES].map((s) => opt(s, q.status))}</select></label>
  <label>search <input type="search" name="q" value="${q.q ?? ""}" placeholder="title or signature"></label>
  <label>target version <input name="version" value="${q.version ?? ""}"></label>
  ${q.campaignId ? html`<input type="hidden" name="campaignId" value="${q.campaignId}">` : ""}
  ${q.targetId ? html`<input type="hidden" name="targetId" value="${q.targetId}">` : ""}
  ${q.sort ? html`<input type="hidden" name="sort" value="${q.sort}">` : ""}
  ${q.order ? html`<input type="hidden" name="order" value="${q.order}">` : ""}
  <button type="submit">Filter</button> <a href="/buckets">reset</a>
</form>
${q.campaignId ? html`<p>Campaign <a href="/campaigns/${seg(q.campaignId)}"><code>${q.campaignId}</code></a></p>` : ""}
<div data-live="buckets">
${pager("/buckets", query, page, res.total, PAGE_SIZE)}
${bucketTable(res.items, { query })}
</div>`;
      return sendPage(req, reply, { title: "Buckets", active: "buckets", body });
    },
  });

  app.get("/buckets/:id", {
    schema: { hide: true, params: IdParams, querystring: { type: "object", properties: { reports: { type: "integer", minimum: 1, maximum: 1_000_000 } } } },
    handler: async (req, reply) => {
      const { id } = req.params as { id: string };
      const rpage = pageNumber((req.query as { reports?: number }).reports);
      const b = await bucketDetail(db, id);
      const [reports, similar] = await Promise.all([bucketReports(db, id, { limit: REPORTS_PER_PAGE, offset: (rpage - 1) * REPORTS_PER_PAGE }), similarBuckets(db, id, 20)]);
      const writer = canWrite(req);
      const first = reports.items[0];
      const extras = findingExtras(first?.artifact);
      const frames = Array.isArray(b.frames) ? (b.frames as unknown[]) : [];

      const facts = html`<dl class="facts" data-live="facts">
<dt>status</dt><dd><span class="status status-${b.status}" data-field="status">${b.status}</span>${b.fixedVersion ? html` (fixed in ${b.fixedVersion})` : ""}</dd>
<dt>kind</dt><dd>${b.kind}</dd>
<dt>count</dt><dd data-field="count">${fmtInt(b.count)} hits in ${fmtInt(b.reportCount)} reports</dd>
<dt>reproduction</dt><dd>${fmtRate(b.reproRate)} (${b.reproHits}/${b.reproRuns} runs, ${b.reproLabel})</dd>
<dt>first seen</dt><dd>${fmtTime(b.firstSeen)} ${b.firstSeenVersion ? html`<small>in ${b.firstSeenVersion}</small>` : ""}</dd>
<dt>last seen</dt><dd>${fmtTime(b.lastSeen)} ${b.lastSeenVersion ? html`<small>in ${b.lastSeenVersion}</small>` : ""}</dd>
<dt>target</dt><dd>${b.target.name} @ ${b.target.version} <small>${b.target.path}</small></dd>
<dt>campaigns</dt><dd>${b.campaignIds.map((c) => html`<a href="/campaigns/${seg(c)}"><code>${c}</code></a> `)}</dd>
${b.mergedIntoId ? html`<dt>merged into</dt><dd><a href="/buckets/${seg(b.mergedIntoId)}" data-field="mergedInto">${b.mergedIntoId}</a></dd>` : ""}
<dt>note</dt><dd class="note" data-field="note">${b.note ?? "–"}</dd>
</dl>`;

      const repro = html`<h2>Reproduce</h2>
${b.reproCommand ? html`<pre id="repro-cmd">${b.reproCommand}</pre><button type="button" data-copy="repro-cmd">Copy command</button>` : html`<p class="muted">No reproduction command recorded.</p>`}
<p>Reproducer:
${b.artifactSizes.original !== null ? html`<a href="/api/buckets/${seg(b.id)}/reproducer?variant=original" download>original (${fmtBytes(b.artifactSizes.original)})</a>` : "no original"} ·
${b.artifactSizes.minimized !== null ? html`<a href="/api/buckets/${seg(b.id)}/reproducer?variant=minimized" download>minimized (${fmtBytes(b.artifactSizes.minimized)})</a>` : "not minimized yet"}</p>`;

      const schedule =
        extras.schedule.length || extras.explanation.length
          ? html`<h2>Schedule</h2>
${extras.strategy ? html`<p>strategy <b>${extras.strategy}</b>${extras.seed !== null ? html`, seed ${extras.seed}` : ""}${extras.fingerprint ? html`, fingerprint <code>${extras.fingerprint}</code>` : ""}</p>` : ""}
${extras.explanation.length ? html`<pre class="explanation">${extras.explanation.join("\n")}</pre>` : ""}
${
  extras.schedule.length
    ? html`<p class="muted">Delivery order of callbacks in the failing run; held = the fuzzer delayed it past later ones.</p>
<table class="schedule"><thead><tr><th class="num">#</th><th>callback (kind@site)</th><th>held</th><th class="num">t (ms)</th></tr></thead><tbody>
${extras.schedule.map((s) => html`<tr${s.held ? html` class="held"` : ""}><td class="num">${s.seq}</td><td><code>${s.id}</code></td><td>${s.held ? "held" : ""}</td><td class="num">${s.t ?? ""}</td></tr>`)}
</tbody></table>${extras.scheduleTotal > extras.schedule.length ? html`<p class="muted">first ${extras.schedule.length} of ${extras.scheduleTotal} deliveries</p>` : ""}`
    : ""
}`
          : "";
      const program = extras.wat ? html`<h2>Program (.wat)</h2><pre class="wat">${extras.wat}</pre>` : "";
      // The latest minimization (applyMinimized records it as a bucket event): for Node races, which held callbacks the failure needs.
      const minEvent = b.events.find((e) => e.action === "minimized" && typeof (e.detail as Record<string, unknown> | null)?.explanation === "string");
      const md = (minEvent?.detail ?? {}) as { explanation?: string; originalSize?: number; size?: number; tries?: number };
      const minimized = minEvent
        ? html`<h2>Minimized</h2><p class="minimized-explanation">${md.explanation}</p>
<p class="muted">${typeof md.originalSize === "number" && typeof md.size === "number" ? `size ${md.originalSize} → ${md.size}` : ""}${typeof md.tries === "number" ? `, ${md.tries} tries` : ""} · ${fmtTime(minEvent.at)}</p>`
        : "";

      const reportRows = reports.items.map(
        (r) => html`<article class="report" data-report="${r.id}">
<h3>${writer ? html`<label><input type="checkbox" name="reportIds" value="${r.id}" form="split-form"> ` : ""}<code>${r.id}</code>${writer ? html`</label>` : ""}
 <small>${fmtTime(r.createdAt)} · ${r.kind} · ${r.hits} hit(s)${r.targetVersion ? ` · ${r.targetVersion}` : ""}${r.campaignId ? html` · campaign <a href="/campaigns/${seg(r.campaignId)}">${r.campaignId}</a>` : ""}</small></h3>
<p class="message">${r.message}</p>
<pre class="stack">${r.stack}</pre>
${r.signature !== b.signature ? html`<p><small>signature <code>${r.signature}</code></small></p>` : ""}
</article>`,
      );

      const triage = writer
        ? html`<h2>Triage</h2>
<div class="triage">
<form data-api="/api/buckets/${seg(b.id)}/status" id="status-form">
  <label>Status <select name="status">${BUCKET_STATUSES.map((s) => html`<option value="${s}"${s === b.status ? html` selected` : ""}>${s}</option>`)}</select></label>
  <label>fixed in version <input name="version" placeholder="optional"></label>
  <button type="submit">Set status</button> <span class="api-result"></span>
</form>
<form data-api="/api/buckets/${seg(b.id)}/notes" id="note-form">
  <label>Note<br><textarea name="note" rows="3" cols="40" maxlength="4000"></textarea></label><br>
  <button type="submit">Add note</button> <span class="api-result"></span>
</form>
<form data-api="/api/buckets/${seg(b.id)}/merge" data-arrays="from" id="merge-form">
  <p>Merge into this bucket:</p>
  ${similar.length ? similar.map((s) => html`<label class="candidate"><input type="checkbox" name="from" value="${s.id}"> ${s.title} <small>${s.kind} · ${s.status} · ${fmtInt(s.count)}</small></label><br>`) : html`<p class="muted">no other buckets of this target</p>`}
  <label>or bucket ids <input name="from" placeholder="b_…, b_…"></label>
  <button type="submit">Merge checked into this bucket</button> <span class="api-result"></span>
</form>
<form data-api="/api/buckets/${seg(b.id)}/split" data-arrays="reportIds" data-follow="url" id="split-form">
  <p>Split: tick reports below, then</p>
  <label>new title <input name="title" placeholder="optional"></label>
  <button type="submit">Split checked reports into a new bucket</button> <span class="api-result"></span>
</form>
</div>`
        : html`<p><a href="${href("/login", { next: `/buckets/${b.id}` })}">Log in</a> to triage this bucket.</p>`;

      const events = html`<h2>History</h2><table class="events" data-live="events"><thead><tr><th>at</th><th>action</th><th>actor</th><th>detail</th></tr></thead><tbody>
${b.events.map((e) => html`<tr><td>${fmtTime(e.at)}</td><td>${e.action}</td><td>${e.actor}</td><td><code>${JSON.stringify(e.detail)}</code></td></tr>`)}
</tbody></table>`;

      const body = html`<h1 class="bucket-title">${b.title}</h1>
<p><code class="bucket-id">${b.id}</code></p>
${facts}
<h2>Signature</h2><pre class="signature">${b.signature}</pre>
${frames.length ? html`<h2>Top frames</h2><ol class="frames">${frames.map((f) => html`<li><code>${frameText(f)}</code></li>`)}</ol>` : ""}
${repro}
${minimized}
${schedule}
${program}
${triage}
<h2>Reports</h2>
${reportPager(b.id, rpage, reports.total)}
<div class="reports">${reportRows}</div>
${events}`;
      return sendPage(req, reply, { title: `Bucket ${b.title}`, active: "buckets", body });
    },
  });
}

function reportPager(id: string, page: number, total: number): SafeHtml {
  const pages = Math.max(1, Math.ceil(total / REPORTS_PER_PAGE));
  return html`<nav class="pager">
${page > 1 ? html`<a href="${href(`/buckets/${seg(id)}`, { reports: page - 1 })}">← earlier reports</a>` : ""}
<span>reports page ${page} of ${pages} (${fmtInt(total)})</span>
${page < pages ? html`<a href="${href(`/buckets/${seg(id)}`, { reports: page + 1 })}">later reports →</a>` : ""}
</nav>`;
}
