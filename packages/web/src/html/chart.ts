// Line charts as server-rendered SVG: no chart library in the browser, no
// inline script, numbers only (labels are escaped by `html`). Linear or log
// y scale; log scale plots y+1 so zeros stay on the chart.
import { html, type SafeHtml } from "./escape";
import { fmtCompact, fmtTime } from "./format";

export interface ChartSeries {
  name: string;
  /** [x (ms since epoch), y] in x order. */
  points: [number, number][];
}

export interface ChartOptions {
  title: string;
  log?: boolean;
  width?: number;
  height?: number;
  /** "time" x axis (default) or plain numbers. */
  xKind?: "time" | "number";
}

const PAD = { l: 56, r: 12, t: 24, b: 36 };

export function lineChart(series: ChartSeries[], o: ChartOptions): SafeHtml {
  const W = o.width ?? 560;
  const H = o.height ?? 220;
  const all = series.flatMap((s) => s.points);
  const head = html`<figcaption>${o.title}${o.log ? " (log scale)" : ""}</figcaption>`;
  if (all.length === 0) return html`<figure class="chart">${head}<p class="empty">no samples yet</p></figure>`;
  const fy = (y: number) => (o.log ? Math.log10(Math.max(0, y) + 1) : y);
  let x0 = Math.min(...all.map((p) => p[0]));
  let x1 = Math.max(...all.map((p) => p[0]));
  if (x1 === x0) {
    x0 -= 1;
    x1 += 1;
  }
  const y0 = o.log ? 0 : Math.min(0, ...all.map((p) => p[1]));
  let y1 = Math.max(...all.map((p) => fy(p[1])));
  if (y1 <= fy(y0)) y1 = fy(y0) + 1;
  const sx = (x: number) => PAD.l + ((x - x0) / (x1 - x0)) * (W - PAD.l - PAD.r);
  const sy = (y: number) => H - PAD.b - ((fy(y) - fy(y0)) / (y1 - fy(y0))) * (H - PAD.t - PAD.b);
  const yTicks: number[] = [];
  if (o.log) {
    for (let e = 0; e <= Math.ceil(y1); e++) yTicks.push(10 ** e - 1);
  } else {
    const step = niceStep((y1 - y0) / 4);
    for (let v = Math.ceil(y0 / step) * step; v <= y1 + 1e-9; v += step) yTicks.push(v);
  }
  const xTicks = [x0, (x0 + x1) / 2, x1];
  const xLabel = (x: number) => (o.xKind === "number" ? fmtCompact(x) : fmtTime(new Date(x)).slice(11));
  const lines = series.map((s, i) => {
    const d = s.points.map((p) => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(" ");
    return html`<polyline class="s${i % 6}" fill="none" stroke-width="2" points="${d}"><title>${s.name}</title></polyline>`;
  });
  const legend = series.map((s, i) => html`<span class="legend s${i % 6}">${s.name}</span>`);
  return html`<figure class="chart">${head}
<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${o.title}">
<g class="axis">
<line x1="${PAD.l}" y1="${H - PAD.b}" x2="${W - PAD.r}" y2="${H - PAD.b}" stroke="currentColor"></line>
<line x1="${PAD.l}" y1="${PAD.t}" x2="${PAD.l}" y2="${H - PAD.b}" stroke="currentColor"></line>
${yTicks
  .filter((v) => sy(v) >= PAD.t - 1)
  .map((v) => html`<text x="${PAD.l - 6}" y="${sy(v) + 4}" text-anchor="end">${fmtCompact(v)}</text><line class="grid" x1="${PAD.l}" x2="${W - PAD.r}" y1="${sy(v)}" y2="${sy(v)}"></line>`)}
${xTicks.map((x, i) => html`<text x="${sx(x)}" y="${H - PAD.b + 16}" text-anchor="${i === 0 ? "start" : i === 2 ? "end" : "middle"}">${xLabel(x)}</text>`)}
</g>
${lines}
</svg>
<div class="legends">${legend}</div>
</figure>`;
}

function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/** Horizontal bars (per-strategy yield). */
export function barList(rows: { label: string; value: number; note?: string }[], title: string): SafeHtml {
  const max = Math.max(1, ...rows.map((r) => r.value));
  return html`<figure class="bars"><figcaption>${title}</figcaption>
${rows.length === 0 ? html`<p class="empty">no data yet</p>` : ""}
${rows.map(
  (r) => html`<div class="bar-row"><span class="bar-label">${r.label}</span><svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" width="200" height="12"><rect width="${((100 * r.value) / max).toFixed(2)}" height="10"></rect></svg><span class="bar-value">${fmtCompact(r.value)}${r.note ? html` <small>${r.note}</small>` : ""}</span></div>`,
)}
</figure>`;
}
