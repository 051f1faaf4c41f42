// PostgreSQL text and jsonb cannot hold U+0000, and crash text is
// attacker-controlled (a fuzzer's input ends up in messages, stacks, titles,
// signatures). Every such value passes through here before it is stored:
// NUL becomes U+FFFD, so the report is kept instead of failing the whole
// result. Bytes (inputs, reproducers) are left exactly as they are.

const NUL = /\u0000/g;

/** The value with every NUL in its strings (deeply, object keys too) replaced by U+FFFD. */
export function pgSafe<T>(v: T): T {
  if (typeof v === "string") return (v.includes("\u0000") ? v.replace(NUL, "\uFFFD") : v) as T;
  if (v === null || typeof v !== "object" || v instanceof Uint8Array || v instanceof Date) return v;
  if (Array.isArray(v)) return v.map(pgSafe) as T;
  // Class instances that serialize themselves (istanbul's FileCoverage) are stored as their JSON.
  const toJSON = (v as { toJSON?: () => unknown }).toJSON;
  if (typeof toJSON === "function") return pgSafe(toJSON.call(v)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[pgSafe(k)] = pgSafe(x);
  return out as T;
}
