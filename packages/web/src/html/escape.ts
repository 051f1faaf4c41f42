// HTML built by one tagged template. Every interpolated value is escaped
// unless it is itself the output of `html` (or `raw`, which nothing fed by
// crash text ever reaches): crash messages, stacks, file names and notes are
// attacker-controlled, so escaping is the default and cannot be forgotten.

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

/** Escape text for an HTML text node or a quoted attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

/** Markup that is already safe (produced by `html` or `raw`). */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | HtmlValue[];

function render(v: HtmlValue): string {
  if (v === null || v === undefined || v === false) return "";
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join("");
  return escapeHtml(String(v));
}

/** Tagged template: `html\`<td>${value}</td>\`` escapes `value`; nested `html` fragments and arrays of them pass through. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Trusted constant markup (never pass data derived from a request or the database). */
export function raw(s: string): SafeHtml {
  return new SafeHtml(s);
}

/** A URL path + query with each value encoded; keys are code constants. */
export function href(path: string, query: Record<string, string | number | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** Encode one path segment (ids come from the database, but are still attacker-influenced). */
export const seg = (s: string) => encodeURIComponent(s);
