// Flood throttling. A campaign whose target throws a different-looking error
// every execution (a random number in a message, generated function names)
// would bury the bucket list under thousands of one-report buckets. Each
// campaign may open at most `cap` new buckets per fixed window; new
// signatures beyond the cap are grouped by crash site (the first frame's
// file:function) into one "flood" bucket per site, which carries a note and a
// `flood` BucketEvent saying why. Reports keep their own signature, so a flood
// bucket can be split later. The cap is claimed with one atomic statement, so
// concurrent reporters never open more than `cap` buckets in a window.
import type { Db } from "./client";
import { routeFor, routingKeys, type RawTx } from "./internal/triage-sql";

export interface FloodOptions {
  /** Length of a throttling window in milliseconds. Default 60000. */
  windowMs?: number;
  /** New buckets a campaign may open per window before new signatures are grouped by site. Default 50. */
  cap?: number;
  /** Clock, for tests. Default: the current time. */
  now?: Date;
}

export const FLOOD_DEFAULTS = Object.freeze({ windowMs: 60_000, cap: 50 });

/** Signature prefix of flood buckets. */
export const FLOOD_PREFIX = "flood|";

/** Start of the fixed window that holds `now`. */
export function floodWindowStart(now: Date, windowMs: number): Date {
  return new Date(Math.floor(now.getTime() / windowMs) * windowMs);
}

/** `file:function` of the first frame (objects with file/fn, file/function or file/name, or a display string). */
export function crashSite(frames: readonly unknown[]): string {
  const f = frames[0];
  if (typeof f === "string" && f) return f;
  if (f && typeof f === "object") {
    const o = f as Record<string, unknown>;
    const fn = [o.fn, o.function, o.name].find((x) => typeof x === "string" && x) as string | undefined;
    const file = typeof o.file === "string" && o.file ? o.file : undefined;
    if (file || fn) return `${file ?? "<unknown>"}:${fn ?? "<anonymous>"}`;
  }
  return "<no frames>";
}

export function floodSignature(site: string): string {
  return `${FLOOD_PREFIX}${site}`;
}

function resolved(o: FloodOptions = {}) {
  const windowMs = o.windowMs ?? FLOOD_DEFAULTS.windowMs;
  const cap = o.cap ?? FLOOD_DEFAULTS.cap;
  return { windowMs, cap, windowStart: floodWindowStart(o.now ?? new Date(), windowMs) };
}

/** Claim one of the window's `cap` new-bucket slots; false when the cap is reached. One statement, so atomic. */
export async function claimBucketSlot(tx: RawTx, campaignId: string, o: FloodOptions = {}): Promise<boolean> {
  const { cap, windowStart } = resolved(o);
  if (cap <= 0) return false;
  // The count only grows within a window: once full, say so without locking the window row.
  const seen = (await tx.$queryRawUnsafe(
    `SELECT created FROM "CrashFloodWindow" WHERE "campaignId" = $1 AND "windowStart" = $2 AND site = ''`,
    campaignId,
    windowStart,
  )) as { created: number }[];
  if (seen.length && seen[0]!.created >= cap) return false;
  const rows = (await tx.$queryRawUnsafe(
    `INSERT INTO "CrashFloodWindow" ("campaignId", "windowStart", site, created) VALUES ($1, $2, '', 1)
     ON CONFLICT ("campaignId", "windowStart", site) DO UPDATE SET created = "CrashFloodWindow".created + 1
       WHERE "CrashFloodWindow".created < $3
     RETURNING created`,
    campaignId,
    windowStart,
    cap,
  )) as { created: number }[];
  return rows.length > 0;
}

/** Count a report grouped into a site's flood bucket (its own row: never waits on the new-bucket counter). */
export async function countThrottled(tx: RawTx, campaignId: string, site: string, o: FloodOptions = {}): Promise<void> {
  const { windowStart } = resolved(o);
  await tx.$executeRawUnsafe(
    `INSERT INTO "CrashFloodWindow" ("campaignId", "windowStart", site, throttled) VALUES ($1, $2, $3, 1)
     ON CONFLICT ("campaignId", "windowStart", site) DO UPDATE SET throttled = "CrashFloodWindow".throttled + 1`,
    campaignId,
    windowStart,
    site || "<no frames>",
  );
}

export interface FloodStatus {
  windowStart: Date;
  windowMs: number;
  cap: number;
  /** Buckets the campaign opened in the current window. */
  newBuckets: number;
  /** Reports of the current window grouped into flood buckets. */
  throttled: number;
  /** The same per crash site, largest first. */
  throttledBySite: { site: string; reports: number }[];
  /** True when new signatures are being grouped by site right now. */
  flooding: boolean;
  /** Flood buckets holding reports of this campaign (all time), largest first. */
  floodBuckets: { bucketId: string; site: string; reports: number }[];
}

/** Throttling state of a campaign in the window holding `now`. */
export async function floodStatus(db: Db, a: { campaignId: string } & FloodOptions): Promise<FloodStatus> {
  const { windowMs, cap, windowStart } = resolved(a);
  const ws = await db.prisma.crashFloodWindow.findMany({ where: { campaignId: a.campaignId, windowStart } });
  const created = ws.find((w) => w.site === "")?.created ?? 0;
  const sites = ws.filter((w) => w.site !== "").sort((x, y) => y.throttled - x.throttled);
  const rows = (await db.prisma.$queryRawUnsafe(
    `SELECT b.id AS "bucketId", b.signature, count(*)::int AS reports FROM "CrashReport" r JOIN "CrashBucket" b ON b.id = r."bucketId"
     WHERE r."campaignId" = $1 AND b.signature LIKE '${FLOOD_PREFIX}%' GROUP BY b.id, b.signature ORDER BY reports DESC`,
    a.campaignId,
  )) as { bucketId: string; signature: string; reports: number }[];
  const newBuckets = Math.min(created, cap);
  return {
    windowStart,
    windowMs,
    cap,
    newBuckets,
    throttled: sites.reduce((n, w) => n + w.throttled, 0),
    throttledBySite: sites.map((w) => ({ site: w.site, reports: w.throttled })),
    flooding: newBuckets >= cap,
    floodBuckets: rows.map((r) => ({ bucketId: r.bucketId, site: r.signature.slice(FLOOD_PREFIX.length), reports: r.reports })),
  };
}

export type ThrottleDecision = { throttle: false } | { throttle: true; site: string; floodSignature: string };

/**
 * Would recording this crash now be throttled? A read-only preview for the
 * coordinator (e.g. to skip minimizing flood crashes); recordCrash makes the
 * binding decision atomically.
 */
export async function shouldThrottle(
  db: Db,
  a: { campaignId: string; targetId: string; signature: string; frames: readonly unknown[]; triage?: unknown } & FloodOptions,
): Promise<ThrottleDecision> {
  const { cap, windowStart } = resolved(a);
  if (await routeFor(db.prisma, a.targetId, routingKeys(a.signature, a.triage))) return { throttle: false };
  const existing = await db.prisma.crashBucket.findUnique({ where: { targetId_signature: { targetId: a.targetId, signature: a.signature } }, select: { id: true } });
  if (existing) return { throttle: false };
  const w = await db.prisma.crashFloodWindow.findUnique({ where: { campaignId_windowStart_site: { campaignId: a.campaignId, windowStart, site: "" } } });
  if ((w?.created ?? 0) < cap) return { throttle: false };
  const site = crashSite(a.frames);
  return { throttle: true, site, floodSignature: floodSignature(site) };
}
