// The bucket table, shared by the bucket list and the campaign page. Sort
// links and filters are plain query strings: sorting and paging happen on
// the server (queryBuckets).
import type { BucketRow } from "@fuzzfarm/db";
import { html, href, seg, type SafeHtml } from "../../html/escape";
import { fmtInt, fmtRate, fmtTime } from "../../html/format";

export interface TableOptions {
  /** Current filter/sort query, for the sort links; no links when absent. */
  query?: Record<string, string | number | undefined>;
  selectable?: boolean;
}

const COLUMNS: { key: string; label: string; num?: boolean }[] = [
  { key: "title", label: "title" },
  { key: "kind", label: "kind" },
  { key: "status", label: "status" },
  { key: "count", label: "count", num: true },
  { key: "reproRate", label: "repro", num: true },
  { key: "firstSeen", label: "first seen" },
  { key: "lastSeen", label: "last seen" },
  { key: "version", label: "version" },
];

export function bucketTable(rows: BucketRow[], o: TableOptions = {}): SafeHtml {
  const head = COLUMNS.map((c) => {
    if (!o.query) return html`<th${c.num ? html` class="num"` : ""}>${c.label}</th>`;
    const active = (o.query.sort ?? "count") === c.key;
    const order = active && (o.query.order ?? "desc") === "desc" ? "asc" : "desc";
    const arrow = active ? ((o.query.order ?? "desc") === "desc" ? " ↓" : " ↑") : "";
    return html`<th${c.num ? html` class="num"` : ""}><a href="${href("/buckets", { ...o.query, sort: c.key, order, page: undefined })}" data-sort="${c.key}">${c.label}${arrow}</a></th>`;
  });
  if (rows.length === 0) return html`<p class="empty">No buckets.</p>`;
  return html`<table class="buckets"><thead><tr>${head}<th>target</th></tr></thead><tbody>
${rows.map(
  (b) => html`<tr data-bucket="${b.id}">
<td><a href="/buckets/${seg(b.id)}">${b.title}</a></td>
<td>${b.kind}</td>
<td><span class="status status-${b.status}">${b.status}</span></td>
<td class="num">${fmtInt(b.count)}</td>
<td class="num" title="${b.reproHits}/${b.reproRuns} runs, ${b.reproLabel}">${fmtRate(b.reproRate)}</td>
<td>${fmtTime(b.firstSeen)}</td>
<td>${fmtTime(b.lastSeen)}</td>
<td>${b.lastSeenVersion ?? "–"}${b.firstSeenVersion && b.firstSeenVersion !== b.lastSeenVersion ? html` <small>(since ${b.firstSeenVersion})</small>` : ""}</td>
<td>${b.targetName}</td>
</tr>`,
)}
</tbody></table>`;
}
