// Triage of a result's findings before they are persisted: compute each
// finding's crash state and pick its bucket (an existing one when the state
// is equal or similar, else a new one keyed by the signature). The choice is
// triage's chooseBucket over the same candidates that `matchesBucket` (the
// one "same bug" rule) takes, so replays, repro and minimization agree with it.
import { findingKind, type JobResult } from "@fuzzfarm/protocol";
import { bucketCandidates, type ClassifiedFinding, type Db } from "@fuzzfarm/db";
import { bucketCandidate, chooseBucket, crashState, type BucketCandidate } from "@fuzzfarm/triage";

export async function classifyFindings(db: Db, r: JobResult, targetId: string, rootDir: string): Promise<ClassifiedFinding[]> {
  const out: ClassifiedFinding[] = [];
  const candidatesByKind = new Map<string, Awaited<ReturnType<typeof bucketCandidates>>>();
  const asCandidates = new Map<string, BucketCandidate[]>();
  for (const f of r.findings) {
    const state = crashState(f, { rootDir });
    const kind = findingKind(f);
    if (!candidatesByKind.has(kind)) {
      const rows = await bucketCandidates(db, targetId, kind);
      candidatesByKind.set(kind, rows);
      asCandidates.set(kind, rows.map((b) => bucketCandidate(b, { rootDir })));
    }
    const candidates = candidatesByKind.get(kind)!;
    const choice = chooseBucket(state, asCandidates.get(kind)!);
    const joined = choice.bucketId ? candidates.find((b) => b.id === choice.bucketId) : undefined;
    const hits = typeof f.detail.hits === "number" && f.detail.hits > 0 ? Math.floor(f.detail.hits) : 1;
    out.push({
      finding: f,
      kind,
      signature: joined?.signature ?? state.signature,
      title: joined?.title ?? state.title,
      frames: state.frames,
      triage: { rule: choice.rule, score: choice.score, alternatives: choice.alternatives, ownSignature: state.signature, normalizedMessage: state.normalizedMessage },
      hits,
    });
  }
  return out;
}
