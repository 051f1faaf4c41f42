// Constant-time token comparison and random ids for sessions and CSRF tokens.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Compare a presented secret with the expected one without leaking where they differ (lengths included). */
export function sameSecret(presented: string | undefined, expected: string | undefined): boolean {
  if (!presented || !expected) return false;
  return timingSafeEqual(digest(presented), digest(expected));
}

export const randomId = (bytes = 32) => randomBytes(bytes).toString("base64url");

/** Parse a Cookie header into name -> value (first occurrence wins). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    if (!k || k in out) continue;
    let v = part.slice(i + 1).trim();
    if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      out[k] = v;
    }
  }
  return out;
}
