// `fuzzfarm status`: campaigns, workers and queues at a glance.
import { listWorkers, recentCampaigns } from "@fuzzfarm/db";
import { queueDepths } from "@fuzzfarm/queue";
import type { Config } from "@fuzzfarm/config";
import { terminalText } from "@fuzzfarm/logging";
import { openFarm } from "../context";
import { campaignSummary, progressLine } from "./summary";

export async function statusCommand(f: { json?: boolean; all?: boolean }, config: Config, out = process.stdout): Promise<number> {
  const farm = await openFarm(config);
  try {
    const camps = await recentCampaigns(farm.db, { all: f.all });
    const campaigns = await Promise.all(camps.map((c) => campaignSummary(farm.db, c.id)));
    const workers = await listWorkers(farm.db, 60_000);
    const queues = await queueDepths(farm.queues);
    if (f.json) {
      out.write(`${JSON.stringify({ campaigns, workers, queues })}\n`);
      return 0;
    }
    out.write(`campaigns (${campaigns.length}):\n`);
    for (const s of campaigns) out.write(`  ${s.campaignId} ${s.status.padEnd(9)} ${s.engine.padEnd(5)} ${terminalText(s.target.name)}  ${progressLine(s)}\n`);
    out.write(`workers (${workers.length}):\n`);
    for (const w of workers)
      out.write(`  ${w.id}  engines ${w.engines.join(",")}  job ${w.currentJobId ?? "-"}  ${Math.round(w.execsPerSec)} execs/s  seen ${Math.round((Date.now() - w.lastHeartbeat.getTime()) / 1000)}s ago\n`);
    out.write(`queues:\n`);
    for (const [name, d] of Object.entries(queues)) if (d.waiting + d.active + d.delayed + d.failed) out.write(`  ${name.padEnd(18)} waiting ${d.waiting} active ${d.active} delayed ${d.delayed} failed ${d.failed}\n`);
    return 0;
  } finally {
    await farm.close();
  }
}
