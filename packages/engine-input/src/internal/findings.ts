// The input engine's "same bug" key of a finding inside one job: (kind, top
// stack frame). The job recorder keeps one finding per key, so a bug hit
// 10,000 times is one finding with detail.hits = 10000 and the first input
// that hit it as its reproducer. The top frame skips the harness's own frames
// and Node internals; without a JS frame the message stands in for it.
import type { Finding } from "@fuzzfarm/protocol";
import { findingKind } from "@fuzzfarm/protocol";

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
