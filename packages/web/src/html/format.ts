// Number and date formatting for the pages (plain text; escaping happens in `html`).

export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** 1234567 -> "1.23M". */
export function fmtCompact(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e9) return `${(n / 1e9).toFixed(2)}G`;
  if (a >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (a >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

export function fmtPct(part: number, whole: number): string {
  return whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : "–";
}

export function fmtRate(r: number | null): string {
  return r === null ? "–" : `${(100 * r).toFixed(0)}%`;
}

/** ISO-like UTC timestamp, second precision. */
export function fmtTime(d: Date | string | null | undefined): string {
  if (!d) return "–";
  const t = typeof d === "string" ? new Date(d) : d;
  return Number.isNaN(t.getTime()) ? "–" : t.toISOString().replace("T", " ").slice(0, 19);
}

/** "3 s ago", "5 min ago". */
export function fmtAgo(d: Date | number, now = Date.now()): string {
  const ms = now - (typeof d === "number" ? d : d.getTime());
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 172_800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

export function fmtBytes(n: number | null): string {
  if (n === null) return "–";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
