// Triage of a result's findings before they are persisted: compute each
// finding's crash state and pick its bucket (an existing one when the state
// is equal or similar, else a new one keyed by the signature).
import { findingKind, type JobResult } from "@fuzzfarm/protocol";
import { bucketCandidates, type ClassifiedFinding, type Db } from "@fuzzfarm/db";
import { chooseBucket, crashState, normalizeMessage } from "@fuzzfarm/triage";

export async function classifyFindings(db: Db, r: JobResult, targetId: string, rootDir: string): Promise<ClassifiedFinding[]> {
  const out: ClassifiedFinding[] = [];
  const candidatesByKind = new Map<string, Awaited<ReturnType<typeof bucketCandidates>>>();
  for (const f of r.findings) {
    const state = crashState(f, { rootDir });
    const kind = findingKind(f);
    if (!candidatesByKind.has(kind)) candidatesByKind.set(kind, await bucketCandidates(db, targetId, kind));
    const candidates = candidatesByKind.get(kind)!;
    const choice = chooseBucket(
      state,
      candidates.map((b) => ({ id: b.id, signature: b.signature, kind: b.kind, frames: b.frames as never, normalizedMessage: b.normalizedMessage ?? normalizeMessage(b.message, { rootDir }) })),
    );
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
