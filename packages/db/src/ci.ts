// What `fuzzfarm ci` replays after a pull request's campaign: every bucket
// the farm knows for the target (the campaign's and the ones found before,
// on the base), each with its first report (message, stack, reproducer
// artifact) and the farm's own reproduction counts. The CLI reads it from
// the database in local mode and through the dashboard's CI API in farm
// mode, so both modes classify the same list.
import { createHash } from "node:crypto";
import type { Db } from "./client";

/** A bucket `fuzzfarm ci` replays on the head and on the base. */
export interface CiCandidate {
  id: string;
  kind: string;
  title: string;
  /** Triage status on the farm (new, confirmed, fixed, ...). */
  status: string;
  /** The farm's reproduction runs of this bucket (maintenance replays): runs, hits and label. */
  reproduction: { runs: number; hits: number; label: string };
  /** The first report: what the worker saw, and its reproducer (artifact.reproducer). */
  report: { message: string; stack: string; artifact: unknown };
}

/** At most this many buckets are replayed by default (most recently seen first). */
export const CI_MAX_CANDIDATES = 100;

/** Unmerged buckets of the targets at `targetPath`, most recently seen first, with their first report. */
export async function ciCandidates(db: Db, targetPath: string, limit = CI_MAX_CANDIDATES): Promise<CiCandidate[]> {
  const known = await db.prisma.crashBucket.findMany({
    where: { target: { path: targetPath }, mergedIntoId: null },
    orderBy: { lastSeen: "desc" },
    take: limit,
    include: { reports: { orderBy: { createdAt: "asc" }, take: 1, select: { message: true, stack: true, artifact: true } } },
  });
  return known.flatMap((b) =>
    b.reports[0]
      ? [
          {
            id: b.id,
            kind: b.kind,
            title: b.title,
            status: b.status,
            reproduction: { runs: b.reproRuns, hits: b.reproHits, label: b.reproLabel },
            report: { message: b.reports[0].message, stack: b.reports[0].stack, artifact: b.reports[0].artifact },
          },
        ]
      : [],
  );
}

/**
 * Seed a new campaign with a corpus carried from earlier runs (`fuzzfarm ci`'s
 * state directory): each input becomes a corpus entry of the campaign, so
 * its planners start from it. Returns how many were added (duplicates skipped).
 */
export async function importCiCorpus(db: Db, campaignId: string, inputs: readonly Buffer[]): Promise<number> {
  if (!inputs.length) return 0;
  const strategy = { imported: "ci-state" };
  const data = inputs.map((input) => ({
    campaignId,
    hash: createHash("sha256").update(input).update(JSON.stringify(strategy)).digest("hex"),
    input: new Uint8Array(input),
    strategy,
  }));
  return (await db.prisma.corpusEntry.createMany({ data, skipDuplicates: true })).count;
}

/** The inputs of a campaign's corpus (what `fuzzfarm ci` keeps in its state directory). */
export async function ciCorpusInputs(db: Db, campaignId: string): Promise<Buffer[]> {
  const rows = await db.prisma.corpusEntry.findMany({ where: { campaignId }, select: { input: true }, orderBy: { createdAt: "asc" } });
  return rows.map((r) => Buffer.from(r.input));
}
