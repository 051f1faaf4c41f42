// Shared set-up of the triage tests: a target, a campaign and a one-line way to report a crash.
import { createCampaign, recordCrash, upsertTarget, type CrashInput, type Db } from "@fuzzfarm/db";

let seq = 0;

export async function setup(db: Db, version?: string) {
  const t = await upsertTarget(db, { name: `t-${process.pid}-${seq++}-${Math.random()}`, engine: "input", path: "/x/t.js", ...(version ? { version } : {}) });
  const c = await createCampaign(db, { targetId: t.id, engine: "input", config: {}, deadline: new Date(Date.now() + 60_000) });
  return { t, c };
}

/** Record one report of `signature` with a fresh job id. */
export function report(db: Db, targetId: string, campaignId: string, signature: string, extra: Partial<CrashInput> = {}) {
  return recordCrash(db.prisma, {
    targetId,
    campaignId,
    jobId: `${campaignId}-j${seq++}`,
    ordinal: 0,
    kind: "uncaught",
    signature,
    title: `crash ${signature}`,
    frames: [{ fn: "fuzz", file: "t.js" }],
    message: "Error: boom",
    stack: "Error: boom\n    at fuzz (t.js:1:1)",
    artifact: {},
    triage: {},
    ...extra,
  });
}

/** Run `n` tasks with at most `width` in flight. */
export async function pool<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}
