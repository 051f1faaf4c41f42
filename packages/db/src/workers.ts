// Worker fleet rows, synced by the coordinator from the heartbeats workers publish in Redis.
import type { Heartbeat } from "@fuzzfarm/protocol";
import type { Db } from "./client";

/** A worker heartbeat as published in Redis. */
export type WorkerBeat = Heartbeat;

export async function upsertWorkers(db: Db, beats: WorkerBeat[]): Promise<void> {
  for (const b of beats) {
    const data = {
      host: b.host,
      pid: b.pid,
      version: b.version,
      engines: b.engines,
      currentJobId: b.currentJobId,
      execsPerSec: b.execsPerSec,
      jobsDone: b.jobsDone,
      lastHeartbeat: new Date(b.at),
    };
    await db.prisma.worker.upsert({ where: { id: b.id }, create: { id: b.id, ...data }, update: data });
  }
}

export async function listWorkers(db: Db, sinceMs = 10 * 60_000) {
  return db.prisma.worker.findMany({ where: { lastHeartbeat: { gte: new Date(Date.now() - sinceMs) } }, orderBy: { lastHeartbeat: "desc" } });
}
