// Shared pieces of crash routing: the per-target advisory lock and the route
// lookup. Recording a crash takes the target's lock in SHARED mode (reporters
// never wait for each other); merges and splits take it EXCLUSIVE, so a report
// is either recorded before a triage decision (and moved by it) or after it
// (and routed by it), never half-way.
import type { Db } from "../client";

/** What both a transaction client and the root client offer for raw SQL. */
export type RawTx = Pick<Db["prisma"], "$queryRawUnsafe" | "$executeRawUnsafe">;

/** Advisory lock class ("FF"); the key is hashtext(targetId). */
const LOCK_CLASS = 0x4646;

export async function lockTargetShared(tx: RawTx, targetId: string): Promise<void> {
  await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock_shared(${LOCK_CLASS}, hashtext($1))`, targetId);
}

export async function lockTargetExclusive(tx: RawTx, targetId: string): Promise<void> {
  await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext($1))`, targetId);
}

export function newBucketId(): string {
  return `b_${globalThis.crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`;
}

/** The crash state's own signature, which the coordinator keeps in `triage.ownSignature` when it joined a similar bucket. */
export function ownSignatureOf(triage: unknown): string | undefined {
  if (triage && typeof triage === "object" && "ownSignature" in triage) {
    const s = (triage as { ownSignature?: unknown }).ownSignature;
    if (typeof s === "string" && s) return s;
  }
  return undefined;
}

/** Keys a report can be routed by, most specific first. */
export function routingKeys(signature: string, triage: unknown): string[] {
  const own = ownSignatureOf(triage);
  return own && own !== signature ? [own, signature] : [signature];
}

/** The bucket a merge or split sent these keys to, preferring the first key. */
export async function routeFor(tx: RawTx, targetId: string, keys: string[]): Promise<string | null> {
  const rows = (await tx.$queryRawUnsafe(
    `SELECT "bucketId", signature FROM "BucketRoute" WHERE "targetId" = $1 AND signature = ANY($2::text[])`,
    targetId,
    keys,
  )) as { bucketId: string; signature: string }[];
  if (!rows.length) return null;
  rows.sort((a, b) => keys.indexOf(a.signature) - keys.indexOf(b.signature));
  return rows[0]!.bucketId;
}

/** Point keys of a target at a bucket (a later decision replaces an earlier one). */
export async function writeRoutes(tx: RawTx, targetId: string, keys: string[], bucketId: string, reason: "merge" | "split", actor: string): Promise<void> {
  if (!keys.length) return;
  await tx.$executeRawUnsafe(
    `INSERT INTO "BucketRoute" ("targetId", signature, "bucketId", reason, actor)
     SELECT $1, k, $3, $4, $5 FROM unnest($2::text[]) AS k
     ON CONFLICT ("targetId", signature) DO UPDATE SET "bucketId" = EXCLUDED."bucketId", reason = EXCLUDED.reason,
       actor = EXCLUDED.actor, "createdAt" = now()`,
    targetId,
    keys,
    bucketId,
    reason,
    actor,
  );
}
