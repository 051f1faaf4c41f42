// The worker fleet as the dashboard shows it: rows the coordinator synced
// into PostgreSQL, refreshed by the live heartbeats in Redis (fresher, and
// present even before the coordinator's next sync).
import { listWorkers } from "@fuzzfarm/db";
import { readHeartbeats } from "@fuzzfarm/queue";
import type { Heartbeat } from "@fuzzfarm/protocol";
import type { WebContext } from "../../plugins/services";

/** A worker's last heartbeat (fields as published) plus when it was seen and whether it is still live. */
export interface FleetWorker extends Omit<Heartbeat, "at"> {
  lastHeartbeat: Date;
  /** A heartbeat is in Redis (younger than a minute). */
  live: boolean;
}

export async function fleet(ff: WebContext, sinceMs = 10 * 60_000): Promise<FleetWorker[]> {
  const [rows, beats] = await Promise.all([listWorkers(ff.db, sinceMs), readHeartbeats(ff.redis, ff.prefix)]);
  const byId = new Map<string, FleetWorker>();
  for (const r of rows)
    byId.set(r.id, { id: r.id, host: r.host, pid: r.pid, version: r.version, engines: r.engines, currentJobId: r.currentJobId, execsPerSec: r.execsPerSec, jobsDone: r.jobsDone, lastHeartbeat: r.lastHeartbeat, live: false });
  for (const b of beats) {
    const prev = byId.get(b.id);
    if (prev && prev.lastHeartbeat.getTime() > b.at) {
      prev.live = true;
      continue;
    }
    byId.set(b.id, { id: b.id, host: b.host, pid: b.pid, version: b.version, engines: b.engines, currentJobId: b.currentJobId, execsPerSec: b.execsPerSec, jobsDone: b.jobsDone, lastHeartbeat: new Date(b.at), live: true });
  }
  return [...byId.values()].sort((a, b) => a.host.localeCompare(b.host) || a.id.localeCompare(b.id));
}
