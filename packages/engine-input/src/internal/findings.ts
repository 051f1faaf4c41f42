// Findings of one job, deduplicated by (kind, top stack frame): a bug hit
// 10,000 times is one finding with detail.hits = 10000 and the first input
// that hit it as its reproducer. The top frame skips the harness's own frames
// and Node internals; without a JS frame the message stands in for it.
import type { Finding } from "@fuzzfarm/protocol";
import { findingKind } from "@fuzzfarm/protocol";

/** Most distinct findings kept per job (the protocol allows 1000). */
export const MAX_DISTINCT_FINDINGS = 200;

const OWN_FRAME = /[\\/]engine-input[\\/]src[\\/]internal[\\/]child[\\/]|\(node:|^\s*at node:|<anonymous>\)?$/;

export function topFrame(stack: string): string | null {
  for (const line of stack.split("\n")) {
    if (!/^\s+at /.test(line) || OWN_FRAME.test(line)) continue;
    return line.trim();
  }
  return null;
}

export function dedupeKey(f: Finding): string {
  const detail = f.detail ?? {};
  const where = topFrame(f.stack) ?? (f.kind === "crash" && f.crashKind === "exit" ? `exit ${String(detail.exitCode)}` : f.message);
  return `${findingKind(f)}|${where}`;
}

export class FindingBook {
  private readonly byKey = new Map<string, Finding>();

  get size(): number {
    return this.byKey.size;
  }

  /** Record `count` hits of a finding; returns true when it is a new one. */
  add(f: Finding, count = 1): boolean {
    const key = dedupeKey(f);
    const prev = this.byKey.get(key);
    if (prev) {
      prev.detail.hits = Number(prev.detail.hits ?? 0) + count;
      return false;
    }
    if (this.byKey.size >= MAX_DISTINCT_FINDINGS) return false;
    this.byKey.set(key, { ...f, detail: { ...f.detail, hits: count } });
    return true;
  }

  list(): Finding[] {
    return [...this.byKey.values()];
  }
}
