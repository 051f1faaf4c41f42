// Between the state directory and one `fuzzfarm ci` run: which buckets to
// replay (the stored ones of the target, then the campaign's that are not
// already stored: one bug, one identity, an id from its repository-relative
// signature), and what the run adds (history events, new buckets, status,
// corpus, reproducer files).
import type { PullRequestBucket } from "@fuzzfarm/github";
import { referenceState, type CandidateBucket } from "./replay";
import { writeReproducerFile } from "./reproducer-file";
import { localize, relocate, stateBucketId, type StateBucket, type StateDir } from "./state";

export interface RunCandidates {
  candidates: CandidateBucket[];
  /** Every candidate by id, as the state will store it (signature, engine, report relative to the checkout). */
  records: Map<string, Omit<StateBucket, "history" | "status"> & { history: StateBucket["history"]; status: StateBucket["status"] }>;
  /** The campaign's own bucket id (the farm's, in farm mode) of each candidate that came from it. */
  campaignIds: Map<string, string>;
}

/** Stored buckets first (known: true), then the campaign's buckets whose signature is not stored yet. */
export function runCandidates(stored: StateBucket[], fromCampaign: CandidateBucket[], target: string, root: string, engine: string): RunCandidates {
  const candidates: CandidateBucket[] = [];
  const records: RunCandidates["records"] = new Map();
  const campaignIds = new Map<string, string>();
  for (const b of stored) {
    candidates.push({ id: b.id, kind: b.kind, title: b.title, report: localize(b.report, root), known: true });
    records.set(b.id, { ...b, history: [] });
  }
  const bySignature = new Map(stored.map((b) => [b.signature, b.id]));
  for (const c of fromCampaign) {
    const ref = referenceState(c, root);
    if (!ref) continue;
    const storedId = bySignature.get(ref.state.signature);
    if (storedId) {
      if (!campaignIds.has(storedId)) campaignIds.set(storedId, c.id);
      continue;
    }
    const id = stateBucketId(target, ref.state.signature);
    bySignature.set(ref.state.signature, id);
    campaignIds.set(id, c.id);
    candidates.push({ ...c, id, title: ref.state.title });
    records.set(id, { version: 1, id, target, engine, kind: c.kind, title: ref.state.title, signature: ref.state.signature, status: "open", history: [], report: relocate(c.report, root) });
  }
  return { candidates, records, campaignIds };
}

export interface RecordOptions {
  state: StateDir;
  root: string;
  commit: string;
  /** Where reproducer files go (the workflow's artifact). */
  reproducerDir: string;
  /** Batch mode on the default branch: a stored bucket the head no longer reproduces is fixed. */
  goneIsFixed?: boolean;
}

/**
 * Store what the run saw of each bucket (an event in its history; fixed when it replayed on the base and not the
 * head, open again when the head has it) and write a reproducer file for each bucket the head has.
 */
export function recordRun(buckets: PullRequestBucket[], run: RunCandidates, o: RecordOptions): void {
  const at = new Date().toISOString();
  for (const b of buckets) {
    const rec = run.records.get(b.id);
    if (!rec) continue;
    const status = b.class === "fixed" || (b.class === "unreproduced" && o.goneIsFixed) ? "fixed" : b.class === "unreproduced" ? rec.status : "open";
    o.state.saveBucket({ ...rec, status, history: [{ at, commit: o.commit, event: b.class }] });
    if (b.head.hits > 0) {
      const { version: _v, status: _s, history: _h, ...facts } = rec;
      writeReproducerFile(o.reproducerDir, o.root, { ...facts, report: localize(rec.report, o.root) }, o.commit);
    }
  }
}
