// The campaign page: coverage and schedule novelty over time (linear or log
// scale), corpus growth, per-strategy yield, job throughput and the
// campaign's buckets. Regions marked data-live are refreshed on farm events.
import type { FastifyInstance } from "fastify";
import { campaignSeries, campaignSummary, campaignThroughput, queryBuckets } from "@fuzzfarm/db";
import { html, href, seg } from "../../html/escape";
import { barList, lineChart } from "../../html/chart";
import { fmtCompact, fmtInt, fmtPct, fmtTime } from "../../html/format";
import { bucketTable } from "../buckets/table";
import { sendPage } from "../../internal/pages";
import { IdParams } from "../../schemas";

export default async function campaignPage(app: FastifyInstance) {
  const db = app.ff.db;
  app.get("/campaigns/:id", {
    schema: {
      hide: true,
      params: IdParams,
      querystring: { type: "object", properties: { scale: { type: "string", enum: ["linear", "log"], default: "linear" } } },
    },
    handler: async (req, reply) => {
      const { id } = req.params as { id: string };
      const log = (req.query as { scale: string }).scale === "log";
      const c = await campaignSummary(db, id);
      const [series, strategies, throughput, buckets] = await Promise.all([
        campaignSeries(db, id, 300),
        app.ff.strategyYield.get(id),
        campaignThroughput(db, id, 60),
        queryBuckets(db, { campaignId: id, limit: 25, count: false }),
      ]);
      const t = (p: { at: Date }) => p.at.getTime();
      const charts = html`<div class="charts" data-live="charts">
${lineChart(
  [
    { name: "coverage features", points: series.map((p) => [t(p), p.covered]) },
    { name: "schedule / program novelty", points: series.map((p) => [t(p), p.novelty]) },
  ],
  { title: "Coverage and novelty", log },
)}
${lineChart([{ name: "corpus entries", points: series.map((p) => [t(p), p.corpusSize]) }], { title: "Corpus growth", log })}
${lineChart([{ name: "executions", points: series.map((p) => [t(p), p.execs]) }], { title: "Executions", log })}
${lineChart([{ name: "buckets", points: series.map((p) => [t(p), p.buckets]) }], { title: "Crash buckets", log })}
${lineChart(
  [
    { name: "jobs per bin", points: throughput.bins.map((b) => [b.start.getTime(), b.jobs]) },
    { name: "mean latency (s)", points: throughput.bins.map((b) => [b.start.getTime(), b.meanLatencyMs / 1000]) },
  ],
  { title: `Job throughput (${Math.round(throughput.binMs / 1000)} s bins)`, log },
)}
${barList(
  strategies.map((s) => ({ label: s.strategy, value: s.newFeatures, note: `${s.findings} findings` })),
  "New features by strategy",
)}
</div>`;
      // Wasm jobs report each compared engine configuration as yield key "engine:<id>" (engine-wasm).
      const engineRows = strategies.filter((s) => s.strategy.startsWith("engine:"));
      const body = html`<h1>Campaign <code>${c.id}</code></h1>
<p><span class="status status-${c.status}">${c.status}</span> · target <b>${c.targetName}</b> @ ${c.targetVersion} · engine ${c.engine}
 · started ${fmtTime(c.startedAt)} · deadline ${fmtTime(c.deadline)}${c.endedAt ? html` · ended ${fmtTime(c.endedAt)}` : ""}</p>
<p><a href="/campaigns/${seg(c.id)}/coverage">Coverage report</a> · <a href="${href("/buckets", { campaignId: c.id })}">All buckets of this campaign</a> ·
 scale: ${log ? html`<a href="?scale=linear">linear</a> · <b>log</b>` : html`<b>linear</b> · <a href="?scale=log">log</a>`}</p>
<div class="cards" data-live="cards">
  <div class="card">executions<b data-field="execs">${fmtInt(c.execs)}</b></div>
  <div class="card">execs/s<b data-field="execsPerSec">${fmtCompact(c.execsPerSec)}</b></div>
  <div class="card">coverage<b data-field="covered">${fmtInt(c.covered)}</b><small>of ${fmtInt(c.coverageTotal)} (${fmtPct(c.covered, c.coverageTotal)})</small></div>
  <div class="card">novelty<b data-field="novelty">${fmtInt(c.novelty)}</b></div>
  <div class="card">corpus<b data-field="corpusSize">${fmtInt(c.corpusSize)}</b></div>
  <div class="card">buckets<b data-field="buckets">${fmtInt(c.buckets)}</b><small>${c.newBuckets} new</small></div>
  <div class="card">jobs<b data-field="jobsDone">${fmtInt(c.jobsDone)}</b><small>${Object.entries(throughput.byStatus).map(([k, v]) => `${k} ${v}`).join(" · ")}</small></div>
</div>
<h2>Over time</h2>
${charts}
<h2>Per-strategy yield</h2>
<table data-live="strategies"><thead><tr><th>strategy</th><th class="num">jobs</th><th class="num">execs</th><th class="num">new features</th><th class="num">findings</th><th class="num">features / 1M execs</th></tr></thead>
<tbody>${strategies.map(
        (s) => html`<tr><td>${s.strategy}</td><td class="num">${fmtInt(s.jobs)}</td><td class="num">${fmtInt(s.execs)}</td><td class="num">${fmtInt(s.newFeatures)}</td><td class="num">${fmtInt(s.findings)}</td><td class="num">${s.execs ? (s.newFeatures / (s.execs / 1e6)).toFixed(1) : "–"}</td></tr>`,
      )}</tbody></table>
${engineRows.length ? html`<h2>Per-engine yield</h2>
<table data-live="engines"><thead><tr><th>engine configuration</th><th class="num">jobs</th><th class="num">execs</th><th class="num">findings</th></tr></thead>
<tbody>${engineRows.map((s) => html`<tr><td>${s.strategy.slice("engine:".length)}</td><td class="num">${fmtInt(s.jobs)}</td><td class="num">${fmtInt(s.execs)}</td><td class="num">${fmtInt(s.findings)}</td></tr>`)}</tbody></table>` : ""}
<h2>Buckets (${fmtInt(c.buckets)})</h2>
<div data-live="buckets">${bucketTable(buckets.items, { selectable: false })}</div>`;
      return sendPage(req, reply, { title: `Campaign ${c.id}`, active: "campaign", body });
    },
  });
}
