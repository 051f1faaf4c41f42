// `fuzzfarm buckets` and `fuzzfarm bucket <id>`: the triage list and one bucket's story.
// Titles, stacks, notes and names are the target's (or a user's) text: printed through terminalText.
import { getBucket, listBuckets } from "@fuzzfarm/db";
import { FuzzFarmError } from "@fuzzfarm/protocol";
import type { Config } from "@fuzzfarm/config";
import { terminalText as t } from "@fuzzfarm/logging";
import { openFarm } from "../context";

export interface BucketsFlags {
  json?: boolean;
  kind?: string;
  status?: string;
  campaign?: string;
  limit?: number;
  sort?: string;
}

export async function bucketsCommand(f: BucketsFlags, config: Config, out = process.stdout): Promise<number> {
  const farm = await openFarm(config);
  try {
    let rows = await listBuckets(farm.db, { kind: f.kind, status: f.status, campaignId: f.campaign, limit: f.limit ?? 100 });
    if (f.sort === "last") rows = rows.sort((a, b) => b.lastSeen.getTime() - a.lastSeen.getTime());
    else if (f.sort === "first") rows = rows.sort((a, b) => a.firstSeen.getTime() - b.firstSeen.getTime());
    const view = rows.map((b) => ({
      id: b.id,
      kind: b.kind,
      status: b.status,
      count: b.count,
      title: b.title,
      signature: b.signature,
      target: `${b.target.name}@${b.target.version}`,
      repro: b.reproRuns ? `${b.reproHits}/${b.reproRuns} ${b.reproLabel}` : b.reproLabel,
      firstSeen: b.firstSeen.toISOString(),
      lastSeen: b.lastSeen.toISOString(),
      reproducer: `fuzzfarm repro ${b.id}`,
    }));
    if (f.json) out.write(`${JSON.stringify(view)}\n`);
    else {
      if (!view.length) out.write("no buckets\n");
      for (const b of view) out.write(`${b.id}  ${b.kind.padEnd(9)} ${b.status.padEnd(10)} x${String(b.count).padEnd(6)} ${b.repro.padEnd(14)} ${t(b.title)}\n`);
    }
    return 0;
  } finally {
    await farm.close();
  }
}

export async function bucketShowCommand(id: string, f: { json?: boolean }, config: Config, out = process.stdout): Promise<number> {
  const farm = await openFarm(config);
  try {
    const b = await getBucket(farm.db, id);
    if (!b) throw new FuzzFarmError("FF_ERR_NOT_FOUND", `no bucket ${id}`);
    if (f.json) {
      out.write(`${JSON.stringify({ ...b, reproducer: b.reproducer ? Buffer.from(b.reproducer).toString("base64") : null, minimized: b.minimized ? Buffer.from(b.minimized).toString("base64") : null, reports: b.reports.map((r) => ({ ...r, input: r.input ? Buffer.from(r.input).toString("base64") : null })), events: b.events.map((e) => ({ ...e, id: String(e.id) })) })}\n`);
      return 0;
    }
    out.write(`${b.id}: ${t(b.title)}\n`);
    out.write(`  kind ${b.kind}  status ${b.status}  count ${b.count}  target ${t(b.target.name)}@${t(b.target.version)}\n`);
    out.write(`  signature ${t(b.signature)}\n`);
    out.write(`  reproduction ${b.reproRuns ? `${b.reproHits}/${b.reproRuns} (${b.reproLabel})` : b.reproLabel}   reproduce: fuzzfarm repro ${b.id}\n`);
    out.write(`  first seen ${b.firstSeen.toISOString()} (${t(b.firstSeenVersion ?? "?")})  last seen ${b.lastSeen.toISOString()} (${t(b.lastSeenVersion ?? "?")})\n`);
    if (b.note) out.write(`  note: ${t(b.note)}\n`);
    const first = b.reports[0];
    if (first) out.write(`  first report:\n    ${t(first.stack).split("\n").slice(0, 12).join("\n    ")}\n`);
    out.write(`  history:\n`);
    for (const e of b.events) out.write(`    ${e.at.toISOString()} ${t(e.actor)}: ${t(e.action)} ${t(JSON.stringify(e.detail))}\n`);
    return 0;
  } finally {
    await farm.close();
  }
}
