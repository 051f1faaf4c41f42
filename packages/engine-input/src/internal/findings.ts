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

const EXIT_MARKER = "target called process.exit(";

/**
 * The dedupe key of a finding. Thrown errors: kind + top frame of their own
 * stack. process.exit: the top frame under the harness's last exit banner on
 * stderr (earlier stderr lines may hold unrelated traces). Hangs, signals and
 * out-of-memory carry no JS stack of their own: kind + message.
 */
export function dedupeKey(f: Finding): string {
  const kind = findingKind(f);
  let where: string | null = null;
  if (kind === "uncaught" || kind === "rejection") where = topFrame(f.stack);
  else if (kind === "exit") {
    const at = f.stack.lastIndexOf(EXIT_MARKER);
    where = at >= 0 ? topFrame(f.stack.slice(at)) : null;
  }
  return `${kind}|${where ?? f.message}`;
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
