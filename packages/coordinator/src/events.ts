// What the coordinator announces, to listeners in its own process (typed
// events: the CLI's progress and --stop-on-crash, tests, benches) and to the
// farm (FarmEvents over Redis pub/sub, which the dashboard fans out). Farm
// events are hints to refresh, never the source of truth (PostgreSQL is), so
// a publish that fails does not fail the work that caused it; it is logged.
import { EventEmitter } from "node:events";
import { oneLine, type CampaignEndStatus, type JobResult } from "@fuzzfarm/protocol";
import { publishEvent, type FarmEvent, type FarmQueues } from "@fuzzfarm/queue";
import type { ApplySummary } from "@fuzzfarm/db";
import type { Logger } from "./logger";

/** A fuzz job's result, applied. */
export interface ResultApplied extends ApplySummary {
  campaignId: string;
  jobId: string;
  execs: number;
  error?: JobResult["error"];
  /** Time spent classifying and persisting this result, ms. */
  applyMs: number;
}

/** A replay or minimize job's result, applied to its bucket. */
export interface MaintenanceApplied {
  kind: "replay" | "minimize";
  bucketId: string;
  jobId: string;
}

export type { CampaignEndStatus };

/** Events of a coordinator, by name: the listener's arguments. */
export interface CoordinatorEvents {
  result: [applied: ResultApplied];
  maintenance: [applied: MaintenanceApplied];
  campaignEnded: [campaignId: string, status: CampaignEndStatus];
}

export type CoordinatorListener<K extends keyof CoordinatorEvents> = (...args: CoordinatorEvents[K]) => void;

/** Announces to listeners and to the farm; each method is one thing that happened. */
export interface Announcer {
  on<K extends keyof CoordinatorEvents>(event: K, listener: CoordinatorListener<K>): void;
  off<K extends keyof CoordinatorEvents>(event: K, listener: CoordinatorListener<K>): void;
  campaignStarted(campaignId: string): Promise<void>;
  campaignEnded(campaignId: string, status: CampaignEndStatus): Promise<void>;
  /** A fuzz result applied (not a duplicate): the result, then each new bucket. */
  resultApplied(applied: ResultApplied, newBuckets: string[]): Promise<void>;
  /** A result delivered again and dropped: only local listeners hear of it. */
  duplicateResult(applied: ResultApplied): void;
  maintenanceApplied(applied: MaintenanceApplied): Promise<void>;
}

export function createAnnouncer(queues: FarmQueues, logger: Logger): Announcer {
  // Untyped inside: the Announcer's on/off and `emit` below keep each event's arguments typed
  // (EventEmitter<CoordinatorEvents>'s listener type does not resolve for a generic K).
  const emitter = new EventEmitter();
  const emit = <K extends keyof CoordinatorEvents>(event: K, ...args: CoordinatorEvents[K]) => void emitter.emit(event, ...args);
  const publish = async (ev: FarmEvent) => {
    try {
      await publishEvent(queues.connection, queues.prefix, ev);
    } catch (e) {
      // the ids it concerns as fields of their own, as every coordinator event has them
      const ids = Object.fromEntries(Object.entries(ev).filter(([k]) => k === "campaignId" || k === "jobId" || k === "bucketId"));
      logger.warn({ ...ids, event: ev, err: e }, `event ${ev.type} not published (dashboards refresh on the next one): ${oneLine(e)}`);
    }
  };
  return {
    on: (event, listener) => void emitter.on(event, listener),
    off: (event, listener) => void emitter.off(event, listener),
    async campaignStarted(campaignId) {
      await publish({ type: "campaign", campaignId, status: "running" });
    },
    async campaignEnded(campaignId, status) {
      await publish({ type: "campaign", campaignId, status });
      emit("campaignEnded", campaignId, status);
    },
    async resultApplied(applied, newBuckets) {
      const { campaignId, jobId, execs, newCoverage, newNovelty } = applied;
      await publish({ type: "result", campaignId, jobId, execs, newCoverage, newNovelty, newBuckets });
      for (const bucketId of newBuckets) await publish({ type: "bucket", bucketId, action: "created" });
      emit("result", applied);
    },
    duplicateResult(applied) {
      emit("result", applied);
    },
    async maintenanceApplied(applied) {
      await publish({ type: "bucket", bucketId: applied.bucketId, action: applied.kind });
      emit("maintenance", applied);
    },
  };
}
